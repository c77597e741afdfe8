package io.kurir.driver.gowa;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.testing.FakeGowa;
import io.kurir.testing.TestGateway;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The media kinds of Kurir's API on GOWA, sent through {@code POST /v1/messages}: Kurir fetches
 * each link itself (never handing GOWA a caller's URL) and uploads the file to GOWA's route for its
 * kind, the fake checking each part as GOWA's validations do; an image GOWA does not show as one (a
 * GIF) goes as a file; what GOWA refuses (a WebM video) fails with the reason, what GOWA's requests
 * cannot hold (a reply on a sticker) is refused at accept, and a link to an internal address is not
 * fetched at all.
 */
class GowaMediaKindsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final byte[] JPEG = bytes(new byte[] {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF}, "j");
  private static final byte[] MP4 = bytes(new byte[] {0, 0, 0, 0x18}, "ftypisom-movie");
  private static final byte[] OGG = bytes(new byte[0], "OggS-voice");
  private static final byte[] PDF = bytes(new byte[0], "%PDF-1.4 nota");
  private static final byte[] WEBP = bytes(new byte[0], "RIFF\0\0\0\0WEBPVP8 ");
  private static final byte[] GIF = bytes(new byte[0], "GIF89a-anim");
  private static final byte[] WEBM =
      bytes(new byte[] {0x1A, 0x45, (byte) 0xDF, (byte) 0xA3}, "B\u0086webm");

  @TempDir Path dir;
  private HttpServer files;
  private String base;

  private static byte[] bytes(byte[] head, String rest) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(head);
    out.writeBytes(rest.getBytes(StandardCharsets.ISO_8859_1));
    return out.toByteArray();
  }

  @BeforeEach
  void serveFiles() throws Exception {
    files = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    serve("/photo.jpg", JPEG);
    serve("/clip.mp4", MP4);
    serve("/voice.ogg", OGG);
    serve("/nota.pdf", PDF);
    serve("/s.webp", WEBP);
    serve("/anim.gif", GIF);
    serve("/clip.webm", WEBM);
    files.start();
    base = "http://127.0.0.1:" + files.getAddress().getPort();
  }

  @AfterEach
  void stopFiles() {
    files.stop(0);
  }

  private void serve(String path, byte[] body) {
    files.createContext(
        path,
        ex -> {
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
  }

  /** {@code POST /v1/messages} with the device's key; the message's id. */
  private static long send(GowaFixture f, Device device, String body) throws Exception {
    TestGateway.Reply r =
        f.kurir.post(
            "/v1/messages",
            body.replace('\'', '"'),
            "application/json",
            "Authorization",
            "Bearer " + device.ecoKey());
    assertThat(r.status()).as(r.body()).isEqualTo(201);
    return JSON.readTree(r.body()).path("id").asLong();
  }

  private static FakeGowa.Sent sentTo(GowaFixture f, String path) {
    return f.gowa.sent().stream().filter(s -> s.path().equals(path)).findFirst().orElseThrow();
  }

  @Test
  void everyMediaKindIsFetchedByKurirAndUploadedToItsRoute() throws Exception {
    try (GowaFixture f = new GowaFixture(dir, "--media.allow-private-addresses=true")) {
      Device device = f.linked("+6281100029101");
      String to = "6281100029109";
      long first = f.sendAsync(device, to, "first");
      f.awaitState(device, first, MessageState.SENT);
      String quoted = f.kurir.networkIdOf(first).orElseThrow();
      List<String> bodies =
          List.of(
              "{'to':'+"
                  + to
                  + "','type':'image','image':{'link':'"
                  + base
                  + "/photo.jpg',"
                  + "'caption':'Foto'},'context':{'message_id':'"
                  + first
                  + "'}}",
              "{'to':'+"
                  + to
                  + "','type':'video','video':{'link':'"
                  + base
                  + "/clip.mp4',"
                  + "'caption':'Klip'}}",
              "{'to':'+"
                  + to
                  + "','type':'audio','audio':{'link':'"
                  + base
                  + "/voice.ogg',"
                  + "'voice':true}}",
              "{'to':'+"
                  + to
                  + "','type':'document','document':{'link':'"
                  + base
                  + "/nota.pdf',"
                  + "'caption':'Nota','filename':'Nota Maret.pdf'},"
                  + "'context':{'message_id':'"
                  + quoted
                  + "'}}",
              "{'to':'+" + to + "','type':'sticker','sticker':{'link':'" + base + "/s.webp'}}");
      for (String body : bodies) {
        long id = send(f, device, body);
        f.awaitState(device, id, MessageState.SENT);
        assertThat(f.kurir.networkIdOf(id)).as(body).contains(f.gowa.sent().getLast().id());
      }
      String jid = to + "@s.whatsapp.net";

      FakeGowa.Sent image = sentTo(f, "/send/image");
      assertThat(image.phone()).isEqualTo(jid);
      assertThat(image.fileType()).isEqualTo("image/jpeg");
      assertThat(image.file()).isEqualTo(JPEG);
      assertThat(image.text()).isEqualTo("Foto");
      assertThat(image.body().path("reply_message_id").asText())
          .as("Kurir's id of the quoted message, sent as WhatsApp's")
          .isEqualTo(quoted);

      FakeGowa.Sent video = sentTo(f, "/send/video");
      assertThat(video.fileType()).isEqualTo("video/mp4");
      assertThat(video.file()).isEqualTo(MP4);
      assertThat(video.text()).isEqualTo("Klip");
      assertThat(video.body().has("reply_message_id")).isFalse();

      FakeGowa.Sent audio = sentTo(f, "/send/audio");
      assertThat(audio.fileType()).isEqualTo("audio/ogg");
      assertThat(audio.file()).isEqualTo(OGG);
      assertThat(audio.body().path("ptt").asText()).as("a voice note").isEqualTo("true");

      FakeGowa.Sent document = sentTo(f, "/send/file");
      assertThat(document.fileName()).isEqualTo("Nota Maret.pdf");
      assertThat(document.file()).isEqualTo(PDF);
      assertThat(document.text()).isEqualTo("Nota");
      assertThat(document.body().path("reply_message_id").asText()).isEqualTo(quoted);

      FakeGowa.Sent sticker = sentTo(f, "/send/sticker");
      assertThat(sticker.fileType()).isEqualTo("image/webp");
      assertThat(sticker.file()).isEqualTo(WEBP);

      JsonNode can =
          JSON.readTree(
                  f.kurir
                      .send(
                          java.net.http.HttpRequest.newBuilder(
                                  java.net.URI.create(f.kurir.url("/v1/devices/" + device.id())))
                              .header("Authorization", "Bearer " + device.ecoKey())
                              .GET()
                              .build())
                      .body())
              .path("capabilities")
              .path("kinds");
      assertThat(can.toString())
          .contains("\"image\"", "\"video\"", "\"audio\"", "\"document\"", "\"sticker\"");
    }
  }

  @Test
  void aGifGoesAsAFileWhatGowaRefusesFailsAndWhatItLacksIsRefusedAtAccept() throws Exception {
    try (GowaFixture f = new GowaFixture(dir, "--media.allow-private-addresses=true")) {
      Device device = f.linked("+6281100029201");
      String to = "+6281100029209";
      long gif =
          send(
              f,
              device,
              "{'to':'"
                  + to
                  + "','type':'image','image':{'link':'"
                  + base
                  + "/anim.gif'},'context':{'message_id':'3EB0BBBB'}}");
      long webm =
          send(
              f,
              device,
              "{'to':'" + to + "','type':'video','video':{'link':'" + base + "/clip.webm'}}");
      TestGateway.Reply repliedSticker =
          f.kurir.post(
              "/v1/messages",
              ("{'to':'"
                      + to
                      + "','type':'sticker','sticker':{'link':'"
                      + base
                      + "/s.webp'},'context':{'message_id':'3EB0AAAA'}}")
                  .replace('\'', '"'),
              "application/json",
              "Authorization",
              "Bearer " + device.ecoKey());
      assertThat(repliedSticker.status()).isEqualTo(422);
      assertThat(JSON.readTree(repliedSticker.body()).path("error").asText())
          .isEqualTo("capability_not_supported");
      f.awaitState(device, gif, MessageState.SENT);
      f.awaitState(device, webm, MessageState.FAILED);
      FakeGowa.Sent asFile = f.gowa.sent().getFirst();
      assertThat(asFile.path()).as("GOWA shows JPEG and PNG only").isEqualTo("/send/file");
      assertThat(asFile.fileType()).isEqualTo("image/gif");
      assertThat(asFile.body().path("reply_message_id").asText()).isEqualTo("3EB0BBBB");
      assertThat(f.message(device, webm).failureReason()).contains("media_type_not_supported");
      TestGateway.Reply interactive =
          f.kurir.post(
              "/v1/messages",
              ("{'to':'"
                      + to
                      + "','type':'interactive','interactive':{'type':'button',"
                      + "'body':{'text':'Pick'},'action':{'buttons':[{'type':'reply',"
                      + "'reply':{'id':'y','title':'Yes'}}]}}}")
                  .replace('\'', '"'),
              "application/json",
              "Authorization",
              "Bearer " + device.ecoKey());
      assertThat(interactive.status()).isEqualTo(422);
      assertThat(JSON.readTree(interactive.body()).path("error").asText())
          .isEqualTo("kind_not_supported");
      assertThat(JSON.readTree(interactive.body()).path("message").asText())
          .isEqualTo("the gowa driver cannot carry interactive");
      assertThat(f.gowa.sent()).as("nothing GOWA would refuse reached it").hasSize(1);
    }
  }

  @Test
  void aFileOverGowasLimitIsRefusedByGowaAndFailsWithItsWords() throws Exception {
    try (GowaFixture f = new GowaFixture(dir, "--media.allow-private-addresses=true")) {
      Device device = f.linked("+6281100029401");
      f.gowa.mediaLimits(8, 8); // GOWA run with --max-file-size 8 B
      long id =
          send(
              f,
              device,
              "{'to':'+6281100029409','type':'document','document':{'link':'"
                  + base
                  + "/nota.pdf'}}");
      f.awaitState(device, id, MessageState.FAILED);
      assertThat(f.message(device, id).failureReason()).contains(GowaDriver.NETWORK_REFUSED);
      assertThat(f.gowa.sent()).isEmpty();
    }
  }

  @Test
  void aLinkToAnInternalAddressIsNotFetchedNorHandedToGowa() throws Exception {
    try (GowaFixture f = new GowaFixture(dir)) {
      Device device = f.linked("+6281100029301");
      long id =
          send(
              f,
              device,
              "{'to':'+6281100029309','type':'video','video':{'link':'" + base + "/clip.mp4'}}");
      f.awaitState(device, id, MessageState.FAILED);
      assertThat(f.message(device, id).failureReason()).contains("url_wrong");
      assertThat(f.gowa.sent()).isEmpty();
    }
  }
}
