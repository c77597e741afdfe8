package io.kurir.driver.waha;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeWahaSending.Engine;
import io.kurir.testing.TestTables;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The kinds WAHA's webhooks bring in beyond texts, images, files, locations and contact cards
 * ({@code WahaKindsTest}), on each engine flavour: a sticker, a voice note and an audio file told
 * apart by the engine's own message in {@code _data}, a video, and reactions from the {@code
 * message.reaction} event Kurir now subscribes to; each stored with its kind, its content in the
 * Cloud API's terms and its file kept.
 */
class WahaIncomingKindsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  private static Device paired(WahaFixture f, String number) {
    Device device = f.newDevice(number, Map.of());
    String name = "kurir-" + device.id();
    f.awaitSession(name, "SCAN_QR_CODE");
    f.waha.scan(name, number.substring(1));
    Eventually.until("online", () -> f.eco(device, "/api/qr_status").equals("online"));
    return device;
  }

  private static JsonNode content(TestTables.InboundRow row) throws Exception {
    return JSON.readTree(row.content().orElseThrow());
  }

  @ParameterizedTest
  @EnumSource(Engine.class)
  void stickersVoiceNotesAudioVideoAndReactionsAreStoredWithTheirContent(Engine engine)
      throws Exception {
    try (WahaFixture f = new WahaFixture(dir)) {
      f.waha.sending().engine(engine);
      Device device = paired(f, "+6281100029501");
      String session = "kurir-" + device.id();
      String from = "6281100029509";
      byte[] webp = "RIFF\0\0\0\0WEBPVP8 ".getBytes(StandardCharsets.ISO_8859_1);
      byte[] ogg = "OggS-voice".getBytes(StandardCharsets.ISO_8859_1);
      byte[] mp3 = "ID3-song".getBytes(StandardCharsets.ISO_8859_1);
      byte[] mp4 = "\0\0\0\u0018ftypisom".getBytes(StandardCharsets.ISO_8859_1);
      assertThat(
              f.waha.incomingMediaOfKind(
                  session, "ST1", from, "sticker", "image/webp", "s.webp", webp))
          .isEqualTo(200);
      assertThat(
              f.waha.incomingMediaOfKind(
                  session, "PT1", from, "voice", "audio/ogg; codecs=opus", "v.ogg", ogg))
          .isEqualTo(200);
      assertThat(
              f.waha.incomingMediaOfKind(session, "AU1", from, "audio", "audio/mpeg", "a.mp3", mp3))
          .isEqualTo(200);
      assertThat(
              f.waha.incomingMediaOfKind(session, "VI1", from, "video", "video/mp4", "v.mp4", mp4))
          .isEqualTo(200);
      String reacted = "true_" + from + "@c.us_3EB0AAAA";
      assertThat(f.waha.incomingReaction(session, "RE1", from, "\uD83D\uDE4F", reacted))
          .as("the webhook subscribes to message.reaction")
          .isEqualTo(200);
      assertThat(f.waha.incomingReaction(session, "RE2", from, "", reacted)).isEqualTo(200);
      Eventually.until("all six stored", () -> f.inbound(device).size() == 6);
      List<TestTables.InboundRow> rows = f.inbound(device);

      assertThat(rows.get(0).kind()).contains("sticker");
      assertThat(rows.get(0).mediaType()).contains("image/webp");
      assertThat(Files.readAllBytes(Path.of(rows.get(0).mediaPath().orElseThrow())))
          .isEqualTo(webp);

      assertThat(rows.get(1).kind()).contains("audio");
      assertThat(content(rows.get(1)).path("audio").path("voice").asBoolean())
          .as("a voice note, by the engine's message")
          .isTrue();
      assertThat(Files.readAllBytes(Path.of(rows.get(1).mediaPath().orElseThrow()))).isEqualTo(ogg);

      assertThat(rows.get(2).kind()).contains("audio");
      assertThat(content(rows.get(2)).path("audio").path("voice").asBoolean()).isFalse();

      assertThat(rows.get(3).kind()).contains("video");
      assertThat(Files.readAllBytes(Path.of(rows.get(3).mediaPath().orElseThrow()))).isEqualTo(mp4);

      JsonNode put = content(rows.get(4)).path("reaction");
      assertThat(rows.get(4).kind()).contains("reaction");
      assertThat(rows.get(4).sender()).isEqualTo("+" + from);
      assertThat(put.path("message_id").asText()).isEqualTo(reacted);
      assertThat(put.path("emoji").asText()).isEqualTo("\uD83D\uDE4F");
      JsonNode taken = content(rows.get(5)).path("reaction");
      assertThat(taken.path("message_id").asText()).isEqualTo(reacted);
      assertThat(taken.path("emoji").asText()).as("a reaction taken away").isEmpty();
    }
  }
}
