package io.kurir.api.graph;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.message.MessageState;
import io.kurir.tenant.ApiScope;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.TestFiles;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.time.SettableClock;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Cloud API's door end to end through the sandbox: Meta's message object in, Meta's reply out,
 * the message on the recipient phone with its kind's object; media uploaded, described, downloaded
 * and sent by id; the read mark; and every refusal in Meta's error object with Meta's code, never a
 * 5xx.
 */
class GraphDoorTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CUSTOMER = "+6281234500077";
  private static final String TO = "6281234500077";

  @TempDir Path dir;
  final SettableClock clock = TestGateway.settableClock();
  TestGateway kurir;
  Device device;
  String licenseKey;
  final HttpClient http = HttpClient.newHttpClient();

  @BeforeEach
  void start() {
    kurir = TestGateway.start(dir, clock);
    device = kurir.newDevice("+6281100002931", true);
    licenseKey =
        kurir
            .gateway()
            .tenants()
            .apiKeys()
            .create(device.licenseId(), "shop", EnumSet.of(ApiScope.SEND))
            .key()
            .orElseThrow();
  }

  @AfterEach
  void stop() {
    kurir.close();
  }

  private String messages(Device d) {
    return "/graph/v23.0/" + d.id() + "/messages";
  }

  private Reply post(String path, String token, String json, String... headers) {
    String[] all = new String[headers.length + 2];
    all[0] = "Authorization";
    all[1] = "Bearer " + token;
    System.arraycopy(headers, 0, all, 2, headers.length);
    return kurir.post(path, json.replace('\'', '"'), "application/json", all);
  }

  private static JsonNode json(Reply r) throws Exception {
    return JSON.readTree(r.body());
  }

  /** Sends {@code object} with the license key: Meta's reply, checked, and the message id. */
  private long send(String object) throws Exception {
    Reply r = post(messages(device), licenseKey, object);
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    JsonNode reply = json(r);
    assertThat(reply.path("messaging_product").asText()).isEqualTo("whatsapp");
    assertThat(reply.path("contacts").path(0).path("input").asText()).isEqualTo(TO);
    assertThat(reply.path("contacts").path(0).path("wa_id").asText()).isEqualTo(TO);
    String id = reply.path("messages").path(0).path("id").asText();
    assertThat(id).matches("[0-9]+");
    return Long.parseLong(id);
  }

  private InboxEntry received(long id) {
    Eventually.until(
        "the phone received message " + id,
        () -> kurir.sandbox().inbox(CUSTOMER).stream().anyMatch(e -> e.messageId() == id));
    return kurir.sandbox().inbox(CUSTOMER).stream()
        .filter(e -> e.messageId() == id)
        .findFirst()
        .orElseThrow();
  }

  /** The Meta error of {@code r}: its status and code, checked against what is expected. */
  private static JsonNode metaError(Reply r, int status, int code) throws Exception {
    assertThat(r.status()).as(r.body()).isEqualTo(status);
    JsonNode error = json(r).path("error");
    assertThat(error.path("type").asText()).isEqualTo("OAuthException");
    assertThat(error.path("code").asInt()).as(r.body()).isEqualTo(code);
    assertThat(error.path("message").asText()).startsWith("(#" + code + ")");
    assertThat(error.path("fbtrace_id").asText()).isNotBlank();
    return error;
  }

  @Test
  void aTextGoesThroughTheCoreToThePhoneWithMetasReply() throws Exception {
    long id =
        send(
            "{'messaging_product':'whatsapp','recipient_type':'individual','to':'"
                + TO
                + "','type':'text','text':{'body':'Hello from Meta code','preview_url':false}}");
    assertThat(received(id).text()).isEqualTo("Hello from Meta code");
    assertThat(kurir.gateway().messages().find(device, id).orElseThrow().api()).isEqualTo("graph");
    // The same digit id as every API of Kurir's: the device's Eco key reads it too.
    Eventually.until(
        "sent",
        () ->
            kurir.gateway().messages().find(device, id).orElseThrow().state()
                != MessageState.PENDING);
  }

  @Test
  void theDevicesEcoKeyIsATokenToo() throws Exception {
    Reply r =
        post(
            messages(device),
            device.ecoKey(),
            "{'messaging_product':'whatsapp','to':'+"
                + TO
                + "','type':'text','text':{'body':'k'}}");
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    received(Long.parseLong(json(r).path("messages").path(0).path("id").asText()));
  }

  @Test
  void anImageByLinkADocumentALocationAndAReplyKeepTheirObjects() throws Exception {
    String image = "{'link':'https://example.com/pic.jpg','caption':'A picture'}";
    long i =
        send(
            "{'messaging_product':'whatsapp','to':'"
                + TO
                + "','type':'image','image':"
                + image
                + "}");
    assertThat(received(i).content().get("image"))
        .isEqualTo(JSON.readTree(image.replace('\'', '"')));

    String doc =
        "{'link':'https://example.com/inv.pdf','caption':'Invoice','filename':'invoice.pdf'}";
    long d =
        send(
            "{'messaging_product':'whatsapp','to':'"
                + TO
                + "','type':'document','document':"
                + doc
                + "}");
    assertThat(received(d).kind()).isEqualTo("document");
    assertThat(received(d).content().get("document"))
        .isEqualTo(JSON.readTree(doc.replace('\'', '"')));

    long l =
        send(
            "{'messaging_product':'whatsapp','to':'"
                + TO
                + "','type':'location','location':{'latitude':-6.175,'longitude':106.8272,"
                + "'name':'Monas','address':'Jakarta'}}");
    JsonNode location = received(l).content().get("location");
    assertThat(location.path("latitude").asDouble()).isEqualTo(-6.175);
    assertThat(location.path("name").asText()).isEqualTo("Monas");
    // Kurir quotes it by the network's id once it has recorded that id (the sent outcome).
    Eventually.until(
        "the location recorded as sent",
        () -> kurir.gateway().messages().find(device, l).orElseThrow().state().wentOut());

    long reply =
        send(
            "{'messaging_product':'whatsapp','to':'"
                + TO
                + "','type':'text','context':{'message_id':'"
                + l
                + "'},'text':{'body':'Here'}}");
    // Quoted by Kurir's id, it reaches the network as the network's id of that message.
    assertThat(received(reply).content().path("context").path("message_id").asText())
        .isEqualTo(received(l).networkId());
  }

  @Test
  void mediaUploadedIsDescribedDownloadedAndSentByItsId() throws Exception {
    HttpResponse<String> up = upload(device, licenseKey, "receipt.png", "image/png", TestFiles.PNG);
    assertThat(up.statusCode()).as(up.body()).isEqualTo(200);
    String mediaId = JSON.readTree(up.body()).path("id").asText();
    assertThat(mediaId).matches("[0-9]+");

    Reply described = kurir.get("/graph/v23.0/" + mediaId, "Authorization", "Bearer " + licenseKey);
    assertThat(described.status()).as(described.body()).isEqualTo(200);
    JsonNode media = JSON.readTree(described.body());
    assertThat(media.path("mime_type").asText()).isEqualTo("image/png");
    assertThat(media.path("file_size").asLong()).isEqualTo(TestFiles.PNG.length);
    assertThat(media.path("sha256").asText())
        .isEqualTo(
            HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(TestFiles.PNG)));
    assertThat(media.path("id").asText()).isEqualTo(mediaId);

    // The URL answered is signed: it works with the token, as Meta documents, and without it,
    // as some SDKs fetch it; the path alone needs the token.
    String url = media.path("url").asText();
    assertThat(download(url, licenseKey).body()).isEqualTo(TestFiles.PNG);
    HttpResponse<byte[]> file = download(url, null);
    assertThat(file.statusCode()).isEqualTo(200);
    assertThat(file.body()).isEqualTo(TestFiles.PNG);
    assertThat(file.headers().firstValue("Content-Type").orElse("")).startsWith("image/png");
    String unsigned = url.substring(0, url.indexOf('?'));
    assertThat(download(unsigned, null).statusCode()).isEqualTo(401);
    assertThat(download(unsigned, licenseKey).body()).isEqualTo(TestFiles.PNG);
    int at = url.indexOf("hash=") + "hash=".length();
    String forged =
        url.substring(0, at) + (url.charAt(at) == '0' ? '1' : '0') + url.substring(at + 1);
    assertThat(download(forged, null).statusCode()).isEqualTo(401);
    clock.advance(Duration.ofMinutes(6));
    HttpResponse<byte[]> expired = download(url, null);
    assertThat(expired.statusCode()).isEqualTo(401);
    assertThat(JSON.readTree(expired.body()).path("error").path("code").asInt()).isEqualTo(190);

    long id =
        send(
            "{'messaging_product':'whatsapp','to':'"
                + TO
                + "','type':'image','image':{'id':'"
                + mediaId
                + "','caption':'Your receipt'}}");
    InboxEntry entry = received(id);
    assertThat(entry.mediaBytes())
        .as("the phone received the uploaded file")
        .isEqualTo(TestFiles.PNG.length);
    assertThat(entry.content().path("image").path("caption").asText()).isEqualTo("Your receipt");

    // Another license's key reaches neither the media nor its file.
    Device other = kurir.newDevice("+6281100002932", true);
    Reply foreign =
        kurir.get("/graph/v23.0/" + mediaId, "Authorization", "Bearer " + other.ecoKey());
    assertThat(metaError(foreign, 400, 100).path("error_subcode").asInt()).isEqualTo(33);
    // Nor can its device send it by id.
    Reply byId =
        post(
            messages(other),
            other.ecoKey(),
            "{'messaging_product':'whatsapp','to':'"
                + TO
                + "','type':'image','image':{'id':'"
                + mediaId
                + "'}}");
    metaError(byId, 400, 131009);

    Reply deleted =
        kurir.send(
            HttpRequest.newBuilder(URI.create(kurir.url("/graph/v23.0/" + mediaId)))
                .header("Authorization", "Bearer " + licenseKey)
                .DELETE()
                .build());
    assertThat(deleted.status()).isEqualTo(200);
    assertThat(JSON.readTree(deleted.body()).path("success").asBoolean()).isTrue();
    metaError(
        kurir.get("/graph/v23.0/" + mediaId, "Authorization", "Bearer " + licenseKey), 400, 100);
  }

  @Test
  void uploadsLastMediaKeepForThenTheSweepDeletesThem() throws Exception {
    String mediaId =
        JSON.readTree(upload(device, licenseKey, "a.png", "image/png", TestFiles.PNG).body())
            .path("id")
            .asText();
    String[] auth = {"Authorization", "Bearer " + licenseKey};
    clock.advance(Duration.ofDays(29));
    assertThat(kurir.get("/graph/v23.0/" + mediaId, auth).status()).isEqualTo(200);
    clock.advance(Duration.ofDays(2)); // past media.keep-for's 30 days, as Meta keeps uploads
    metaError(kurir.get("/graph/v23.0/" + mediaId, auth), 400, 100);
    Reply sent =
        post(
            messages(device),
            licenseKey,
            "{'messaging_product':'whatsapp','to':'"
                + TO
                + "','type':'image','image':{'id':'"
                + mediaId
                + "'}}");
    metaError(sent, 400, 131009);
    // The sweep deletes the row, so that it no longer counts in the license's upload quota, and
    // then its file, which nothing names any more.
    assertThat(kurir.gateway().mediaSweep().sweepOnce()).isEqualTo(1);
  }

  @Test
  void aDocumentUploadedKeepsItsTypeAndName() throws Exception {
    HttpResponse<String> up =
        upload(device, device.ecoKey(), "invoice.pdf", "application/pdf", TestFiles.PDF);
    assertThat(up.statusCode()).as(up.body()).isEqualTo(200);
    String mediaId = JSON.readTree(up.body()).path("id").asText();
    long id =
        send(
            "{'messaging_product':'whatsapp','to':'"
                + TO
                + "','type':'document','document':{'id':'"
                + mediaId
                + "','filename':'invoice.pdf'}}");
    InboxEntry entry = received(id);
    assertThat(entry.mediaType()).isEqualTo("application/pdf");
    assertThat(entry.mediaBytes()).isEqualTo(TestFiles.PDF.length);
  }

  @Test
  void aReadMarkMarksTheChatReadThroughTheDriverAndAnswersSuccess() throws Exception {
    kurir.sandbox().injectIncoming(device.id(), CUSTOMER, "Is it in stock?", "SBX-IN-31");
    Eventually.until("received", () -> kurir.storedIncoming(device.id()) == 1);
    Reply r =
        post(
            messages(device),
            licenseKey,
            "{'messaging_product':'whatsapp','status':'read','message_id':'SBX-IN-31',"
                + "'typing_indicator':{'type':'text'}}");
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    assertThat(json(r).path("success").asBoolean()).isTrue();
    assertThat(kurir.sandbox().readMarks(CUSTOMER).get(device.number()).networkId())
        .isEqualTo("SBX-IN-31");
    assertThat(kurir.sandbox().typing(CUSTOMER)).containsExactly(device.number());
    metaError(
        post(
            messages(device),
            licenseKey,
            "{'messaging_product':'whatsapp','status':'read','message_id':'wamid.X'}"),
        400,
        100);
    metaError(
        post(messages(device), licenseKey, "{'messaging_product':'whatsapp','status':'read'}"),
        400,
        131008);
    metaError(
        post(
            messages(device),
            licenseKey,
            "{'messaging_product':'whatsapp','status':'seen','message_id':'1'}"),
        400,
        100);
  }

  @Test
  void tokensScopesAndPhoneNumberIdsAreCheckedAsMetaAnswers() throws Exception {
    String text =
        "{'messaging_product':'whatsapp','to':'" + TO + "','type':'text','text':{'body':'x'}}";
    metaError(
        post(messages(device), "kurir_nobodyhasthiskey0000000000000000000000", text), 401, 190);
    metaError(post(messages(device), "not-a-key", text), 401, 190);
    metaError(kurir.post(messages(device), text.replace('\'', '"'), "application/json"), 401, 190);

    String readOnly =
        kurir
            .gateway()
            .tenants()
            .apiKeys()
            .create(device.licenseId(), "reports", Set.of(ApiScope.READ))
            .key()
            .orElseThrow();
    metaError(post(messages(device), readOnly, text), 403, 10);

    // Another license's device: not told from a device that does not exist.
    Device other = kurir.newDevice("+6281100002933", true);
    JsonNode error = metaError(post(messages(other), licenseKey, text), 400, 100);
    assertThat(error.path("error_subcode").asInt()).isEqualTo(33);
    metaError(post("/graph/v23.0/999999/messages", licenseKey, text), 400, 100);
    // A device key reaches its own device only.
    metaError(post(messages(device), other.ecoKey(), text), 400, 100);
    assertThat(kurir.storedMessages(other.id())).isZero();
    assertThat(kurir.storedMessages(device.id())).isZero();
  }

  @Test
  void badBodiesGetMetasErrorsAndNever5xx() throws Exception {
    String base = "'messaging_product':'whatsapp','to':'" + TO + "'";
    record Case(String body, int code) {}
    List<Case> cases =
        List.of(
            new Case("not json", 100),
            new Case("[1,2]", 100),
            new Case("{'to':'" + TO + "','type':'text','text':{'body':'x'}}", 100),
            new Case(
                "{'messaging_product':'sms','to':'" + TO + "','type':'text','text':{'body':'x'}}",
                100),
            new Case("{'messaging_product':'whatsapp','type':'text','text':{'body':'x'}}", 100),
            new Case(
                "{" + base + ",'recipient_type':'broadcast','type':'text','text':{'body':'x'}}",
                100),
            new Case(
                "{'messaging_product':'whatsapp','to':'12','type':'text','text':{'body':'x'}}",
                131009),
            new Case("{" + base + ",'type':'fax','fax':{}}", 100),
            new Case("{" + base + ",'type':'text'}", 131008),
            new Case("{" + base + ",'type':'text','text':{'body':''}}", 131008),
            new Case(
                "{" + base + ",'type':'text','text':{'body':'" + "x".repeat(4097) + "'}}", 100),
            new Case("{" + base + ",'type':'image','image':{'link':'ftp://x/y.png'}}", 131009),
            new Case("{" + base + ",'type':'image','image':{'id':'abc'}}", 131009),
            new Case(
                "{" + base + ",'type':'location','location':{'latitude':99,'longitude':1}}",
                131009),
            new Case("{" + base + ",'type':'text','text':{'body':'x'},'context':{}}", 131008));
    for (Case c : cases) {
      metaError(post(messages(device), licenseKey, c.body()), 400, c.code());
    }
    metaError(post("/graph/latest/" + device.id() + "/messages", licenseKey, "{}"), 400, 100);
    Reply unknownRoute = kurir.get("/graph/v23.0/" + device.id() + "/nothing");
    assertThat(unknownRoute.status()).isLessThan(500);
    assertThat(json(unknownRoute).path("error").path("type").asText()).isEqualTo("OAuthException");
    assertThat(kurir.storedMessages(device.id())).isZero();
  }

  @Test
  void anIdempotencyKeyAnswersTheFirstId() throws Exception {
    String text =
        "{'messaging_product':'whatsapp','to':'" + TO + "','type':'text','text':{'body':'once'}}";
    Reply first = post(messages(device), licenseKey, text, "Idempotency-Key", "order-1");
    Reply again = post(messages(device), licenseKey, text, "Idempotency-Key", "order-1");
    assertThat(json(again).path("messages").path(0).path("id").asText())
        .isEqualTo(json(first).path("messages").path(0).path("id").asText());
    assertThat(kurir.storedMessages(device.id())).isEqualTo(1);
  }

  @Test
  void aMediaUploadWithoutAFileIsRefused() throws Exception {
    Reply r =
        kurir.post(
            "/graph/v23.0/" + device.id() + "/media",
            "",
            "multipart/form-data; boundary=x",
            "Authorization",
            "Bearer " + licenseKey);
    assertThat(r.status()).isLessThan(500);
    assertThat(json(r).path("error").path("type").asText()).isEqualTo("OAuthException");
  }

  private HttpResponse<byte[]> download(String url, String token) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  /**
   * {@code POST .../media} as Meta's SDKs send it: multipart with file, messaging_product, type.
   */
  private HttpResponse<String> upload(
      Device d, String token, String name, String type, byte[] bytes) throws Exception {
    String boundary = "----graphtest" + System.nanoTime();
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.writeBytes(
        ("--"
                + boundary
                + "\r\nContent-Disposition: form-data; name=\"messaging_product\"\r\n\r\nwhatsapp\r\n"
                + "--"
                + boundary
                + "\r\nContent-Disposition: form-data; name=\"type\"\r\n\r\n"
                + type
                + "\r\n--"
                + boundary
                + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\""
                + name
                + "\"\r\nContent-Type: "
                + type
                + "\r\n\r\n")
            .getBytes(StandardCharsets.UTF_8));
    body.writeBytes(bytes);
    body.writeBytes(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
    return http.send(
        HttpRequest.newBuilder(URI.create(kurir.url("/graph/v23.0/" + d.id() + "/media")))
            .timeout(Duration.ofSeconds(20))
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "multipart/form-data; boundary=" + boundary)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray()))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
