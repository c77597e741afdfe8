package io.kurir.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.content.Content;
import io.kurir.content.MediaSource;
import io.kurir.content.MessageContent;
import io.kurir.driver.IncomingMessage;
import io.kurir.tenant.Device;
import io.kurir.testing.TestGateway.Reply;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * What the tests of {@code meta} webhook subscriptions share: subscribing one, incoming messages of
 * several kinds from the sandbox, and Meta's signature computed here, from Meta's reference (not
 * Kurir's code).
 */
public final class MetaWebhookChecks {
  private static final ObjectMapper JSON = new ObjectMapper();

  private MetaWebhookChecks() {}

  /** A meta subscription of {@code url}: its secret. */
  public static String subscribeMeta(TestGateway kurir, String key, String url) throws Exception {
    Reply r =
        kurir.post(
            "/v1/webhooks",
            "{\"url\":\""
                + url
                + "\",\"events\":[\"message.received\",\"message.status\"],\"format\":\"meta\"}",
            "application/json",
            "Authorization",
            "Bearer " + key);
    assertThat(r.status()).as(r.body()).isEqualTo(201);
    JsonNode created = JSON.readTree(r.body());
    assertThat(created.get("format").asText()).isEqualTo("meta");
    // Shaped like a Meta app secret, so that it drops into code written for one.
    assertThat(created.get("secret").asText()).matches("[0-9a-f]{32}");
    return created.get("secret").asText();
  }

  /** {@code sha256=} and the hex HMAC-SHA256 of the raw body keyed with the secret's bytes. */
  public static String hubSignature(String secret, byte[] body) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret.getBytes(java.nio.charset.StandardCharsets.UTF_8), "HMAC"));
    return "sha256=" + HexFormat.of().formatHex(mac.doFinal(body));
  }

  /** Sends incoming messages of several kinds to {@code to} from the sandbox's phones. */
  public static void incomingOfSeveralKinds(
      TestGateway kurir, java.time.Clock clock, Device to, String from, Path file)
      throws Exception {
    for (String kind :
        List.of(
            "{'type':'text','name':'Siti','text':{'body':'Ada warna lain?'}}",
            "{'type':'location','location':{'latitude':-6.175,'longitude':106.8272,"
                + "'name':'Monas','address':'Jakarta'}}",
            "{'type':'contacts','contacts':[{'name':{'formatted_name':'Budi Santoso',"
                + "'first_name':'Budi'},'phones':[{'phone':'+6281234500001','type':'CELL'}]}]}",
            "{'type':'reaction','reaction':{'message_id':'wamid.ABC','emoji':'\\uD83D\\uDC4D'}}",
            "{'type':'text','context':{'message_id':'wamid.QUOTED'},'text':{'body':'Ya, besok'}}")) {
      Reply r =
          kurir.post(
              "/sandbox/devices/" + to.id() + "/incoming",
              kind.replace('\'', '"').replaceFirst("\\{", "{\"from\":\"" + from + "\","),
              "application/json",
              "Authorization",
              "Bearer " + TestGateway.ADMIN_TOKEN);
      assertThat(r.status()).as(r.body()).isEqualTo(200);
    }
    // An image whose file came with it, kept as a network's driver keeps one.
    Files.createDirectories(file.getParent());
    Files.write(file, TestFiles.PNG);
    assertThat(
            kurir
                .sandbox()
                .injectIncoming(
                    new IncomingMessage(
                        to.id(),
                        Optional.of("SBX-IMAGE-" + System.nanoTime()),
                        from,
                        Optional.empty(),
                        "Warna merah",
                        Optional.of(new IncomingMessage.Media("image", "image/png", file)),
                        clock.instant(),
                        Optional.empty(),
                        Optional.empty(),
                        Optional.of(
                            MessageContent.of(
                                new Content.Image(MediaSource.NONE, "Warna merah"))))))
        .isTrue();
  }
}
