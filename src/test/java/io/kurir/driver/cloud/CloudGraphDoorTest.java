package io.kurir.driver.cloud;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.content.Content;
import io.kurir.content.MediaSource;
import io.kurir.message.MessageState;
import io.kurir.testing.FakeGraphApi.Sent;
import io.kurir.testing.TestFiles;
import io.kurir.testing.TestGateway;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Cloud API's door in front of the Cloud API driver: a file uploaded to Kurir and sent by
 * Kurir's media id reaches Meta (the fake Graph API) uploaded there and named by Meta's id, which
 * the fake checks was uploaded, as Meta does.
 */
class CloudGraphDoorTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void aFileUploadedToKurirIsUploadedToMetaAndSentByMetasId() throws Exception {
    try (CloudFixture f = new CloudFixture(dir)) {
      String to = f.customer().substring(1);
      String token = f.device.ecoKey();
      String mediaId = upload(f.kurir, f.device.id(), token);
      TestGateway.Reply r =
          f.kurir.post(
              "/graph/v23.0/" + f.device.id() + "/messages",
              ("{'messaging_product':'whatsapp','to':'"
                      + to
                      + "','type':'image','image':{'id':'"
                      + mediaId
                      + "','caption':'Your receipt'}}")
                  .replace('\'', '"'),
              "application/json",
              "Authorization",
              "Bearer " + token);
      assertThat(r.status()).as(r.body()).isEqualTo(200);
      long id =
          Long.parseLong(JSON.readTree(r.body()).path("messages").path(0).path("id").asText());
      f.awaitState(id, MessageState.DELIVERY);

      assertThat(f.graph.uploads()).as("the file uploaded to Meta when the message went").isOne();
      Sent sent = f.graph.sent().getLast();
      JsonNode image = sent.body().path("image");
      assertThat(image.path("id").asText()).isNotBlank().isNotEqualTo(mediaId);
      assertThat(image.has("link")).isFalse();
      assertThat(image.path("caption").asText()).isEqualTo("Your receipt");
      assertThat(f.graph.violations()).isEmpty();
      // Kurir's history keeps what the caller sent: Kurir's media id.
      assertThat(f.message(id).content().orElseThrow().content())
          .isEqualTo(new Content.Image(MediaSource.id(mediaId), "Your receipt"));
    }
  }

  private static String upload(TestGateway kurir, long deviceId, String token) throws Exception {
    String boundary = "----clouddoor" + System.nanoTime();
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.writeBytes(
        ("--"
                + boundary
                + "\r\nContent-Disposition: form-data; name=\"messaging_product\"\r\n\r\nwhatsapp\r\n--"
                + boundary
                + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"receipt.png\"\r\n"
                + "Content-Type: image/png\r\n\r\n")
            .getBytes(StandardCharsets.UTF_8));
    body.writeBytes(TestFiles.PNG);
    body.writeBytes(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(kurir.url("/graph/v23.0/" + deviceId + "/media")))
                    .header("Authorization", "Bearer " + token)
                    .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray()))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body()).path("id").asText();
  }
}
