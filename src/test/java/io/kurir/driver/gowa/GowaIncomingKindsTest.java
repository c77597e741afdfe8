package io.kurir.driver.gowa;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.TestTables;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every kind GOWA's webhook brings in, posted by the fake GOWA as GOWA writes it
 * (docs/webhook-payload.md): each stored with its kind and content in the Cloud API's terms, its
 * file fetched from GOWA and kept under the data folder, its reply's quoted id.
 */
class GowaIncomingKindsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  private static JsonNode content(TestTables.InboundRow row) throws Exception {
    return JSON.readTree(row.content().orElseThrow());
  }

  private static java.net.http.HttpResponse<byte[]> get(GowaFixture f, Device device, String path)
      throws Exception {
    try (var http = java.net.http.HttpClient.newHttpClient()) {
      return http.send(
          java.net.http.HttpRequest.newBuilder(java.net.URI.create(f.kurir.url(path)))
              .header("Authorization", "Bearer " + device.ecoKey())
              .GET()
              .build(),
          java.net.http.HttpResponse.BodyHandlers.ofByteArray());
    }
  }

  /** {@code path} of Kurir's API read with the device's key, as JSON. */
  private static JsonNode api(GowaFixture f, Device device, String path) throws Exception {
    var r = get(f, device, path);
    assertThat(r.statusCode()).as(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  /** The kept file of incoming message {@code id}, by {@code GET /v1/media/{id}}. */
  private static byte[] media(GowaFixture f, Device device, long id) throws Exception {
    var r = get(f, device, "/v1/media/" + id);
    assertThat(r.statusCode()).isEqualTo(200);
    return r.body();
  }

  @Test
  void mediaLocationsContactsReactionsAndRepliesAreStoredWithTheirContentAndFiles()
      throws Exception {
    try (GowaFixture f = new GowaFixture(dir)) {
      Device device = f.linked("+6281100029401");
      String slot = GowaFixture.slot(device);
      String from = "6281100029409";
      byte[] mp4 = "\0\0\0\u0018ftypisom".getBytes(StandardCharsets.ISO_8859_1);
      byte[] ogg = "OggS-voice".getBytes(StandardCharsets.ISO_8859_1);
      byte[] webp = "RIFF\0\0\0\0WEBPVP8 ".getBytes(StandardCharsets.ISO_8859_1);
      byte[] pdf = "%PDF-1.4 nota".getBytes(StandardCharsets.ISO_8859_1);
      assertThat(f.gowa.incomingMedia(slot, "3EB0V1", from, "video", "Klip", "mp4", mp4))
          .isEqualTo(200);
      assertThat(f.gowa.incomingMedia(slot, "3EB0A1", from, "audio", "", "ogg", ogg))
          .isEqualTo(200);
      assertThat(f.gowa.incomingMedia(slot, "3EB0S1", from, "sticker", "", "webp", webp))
          .isEqualTo(200);
      assertThat(f.gowa.incomingMediaReply(slot, "3EB0D1", from, "document", "pdf", pdf, "3EB0Q1"))
          .isEqualTo(200);
      assertThat(
              f.gowa.incomingLocation(
                  slot, "3EB0L1", from, -6.2088, 106.8456, "Monas", "Jakarta Pusat"))
          .isEqualTo(200);
      assertThat(
              f.gowa.incomingContacts(
                  slot,
                  "3EB0C1",
                  from,
                  "Budi",
                  "BEGIN:VCARD\nVERSION:3.0\nFN:Budi\nTEL;type=CELL;waid=6281211112222:+62 812 1111"
                      + " 2222\nEND:VCARD",
                  "+62 812 1111 2222"))
          .isEqualTo(200);
      assertThat(
              f.gowa.incomingContacts(
                  slot,
                  "3EB0C2",
                  from,
                  "Alice",
                  "BEGIN:VCARD\nVERSION:3.0\nN:;Alice;;;\nFN:Alice\nTEL;type=Mobile:+62 812 3456"
                      + " 7890\nEND:VCARD",
                  "+62 812 3456 7890",
                  "Bob",
                  "BEGIN:VCARD\nVERSION:3.0\nN:;Bob;;;\nFN:Bob\nTEL;type=Mobile:+62 813 9876"
                      + " 5432\nEND:VCARD",
                  "+62 813 9876 5432"))
          .isEqualTo(200);
      assertThat(f.gowa.incomingReaction(slot, "3EB0R1", from, "\uD83D\uDC4D", "3EB0Q1"))
          .isEqualTo(200);
      assertThat(f.gowa.incomingReply(slot, "3EB0T1", from, "ya, betul", "3EB0Q1")).isEqualTo(200);
      Eventually.until("all nine stored", () -> f.inbound(device).size() == 9);
      List<TestTables.InboundRow> rows = f.inbound(device);

      TestTables.InboundRow video = rows.get(0);
      assertThat(video.kind()).contains("video");
      assertThat(video.body()).isEqualTo("Klip");
      assertThat(content(video).path("video").path("caption").asText()).isEqualTo("Klip");
      assertThat(video.mediaType()).contains("video/mp4");
      assertThat(Files.readAllBytes(Path.of(video.mediaPath().orElseThrow()))).isEqualTo(mp4);

      TestTables.InboundRow audio = rows.get(1);
      assertThat(audio.kind()).contains("audio");
      assertThat(audio.mediaType()).contains("audio/ogg");
      assertThat(Files.readAllBytes(Path.of(audio.mediaPath().orElseThrow()))).isEqualTo(ogg);

      TestTables.InboundRow sticker = rows.get(2);
      assertThat(sticker.kind()).contains("sticker");
      assertThat(sticker.mediaType()).contains("image/webp");
      assertThat(Files.readAllBytes(Path.of(sticker.mediaPath().orElseThrow()))).isEqualTo(webp);

      TestTables.InboundRow document = rows.get(3);
      assertThat(document.kind()).contains("document");
      assertThat(content(document).path("context").path("message_id").asText()).isEqualTo("3EB0Q1");
      assertThat(Files.readAllBytes(Path.of(document.mediaPath().orElseThrow()))).isEqualTo(pdf);

      TestTables.InboundRow location = rows.get(4);
      assertThat(location.kind()).contains("location");
      JsonNode l = content(location).path("location");
      assertThat(l.path("latitude").asDouble()).isEqualTo(-6.2088);
      assertThat(l.path("longitude").asDouble()).isEqualTo(106.8456);
      assertThat(l.path("name").asText()).isEqualTo("Monas");
      assertThat(l.path("address").asText()).isEqualTo("Jakarta Pusat");

      JsonNode one = content(rows.get(5)).path("contacts");
      assertThat(rows.get(5).kind()).contains("contacts");
      assertThat(one).hasSize(1);
      assertThat(one.path(0).path("name").path("formatted_name").asText()).isEqualTo("Budi");
      assertThat(one.path(0).path("phones").path(0).path("wa_id").asText())
          .isEqualTo("6281211112222");
      JsonNode two = content(rows.get(6)).path("contacts");
      assertThat(two).hasSize(2);
      assertThat(two.path(1).path("name").path("formatted_name").asText()).isEqualTo("Bob");
      assertThat(two.path(1).path("phones").path(0).path("phone").asText())
          .isEqualTo("+62 813 9876 5432");

      TestTables.InboundRow reaction = rows.get(7);
      assertThat(reaction.kind()).contains("reaction");
      assertThat(content(reaction).path("reaction").path("message_id").asText())
          .isEqualTo("3EB0Q1");
      assertThat(content(reaction).path("reaction").path("emoji").asText())
          .isEqualTo("\uD83D\uDC4D");

      // As Kurir's API gives them: the message object, and the kept file by GET /v1/media/{id}.
      JsonNode apiVideo = api(f, device, "/v1/messages/" + video.id());
      assertThat(apiVideo.path("type").asText()).isEqualTo("video");
      assertThat(apiVideo.path("video").path("caption").asText()).isEqualTo("Klip");
      assertThat(apiVideo.path("media_link").asText()).isEqualTo("/v1/media/" + video.id());
      assertThat(media(f, device, video.id())).isEqualTo(mp4);
      JsonNode apiLocation = api(f, device, "/v1/messages/" + location.id());
      assertThat(apiLocation.path("location").path("name").asText()).isEqualTo("Monas");
      JsonNode apiReaction = api(f, device, "/v1/messages/" + reaction.id());
      assertThat(apiReaction.path("reaction").path("message_id").asText()).isEqualTo("3EB0Q1");

      TestTables.InboundRow reply = rows.get(8);
      assertThat(reply.kind()).contains("text");
      assertThat(content(reply).path("text").path("body").asText()).isEqualTo("ya, betul");
      assertThat(content(reply).path("context").path("message_id").asText()).isEqualTo("3EB0Q1");
    }
  }
}
