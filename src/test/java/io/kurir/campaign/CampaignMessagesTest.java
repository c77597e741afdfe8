package io.kurir.campaign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kurir.content.ContentRefused;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A campaign's message filled in per recipient, and its quiet hours across midnight. */
class CampaignMessagesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ZoneId JAKARTA = ZoneId.of("Asia/Jakarta");

  @Test
  void variablesAreFilledWithTheirFallbacksAndUnknownOnesBecomeEmpty() {
    Map<String, String> siti = Map.of("name", "Siti", "kota", "Solo", "wali_kelas", "Bu Rina");
    assertThat(CampaignMessages.fill("Halo {name}, {Wali Kelas} di {kota}.", siti))
        .isEqualTo("Halo Siti, Bu Rina di Solo.");
    assertThat(CampaignMessages.fill("Halo {name|Kak}{ nothing }!", Map.of("name", "")))
        .isEqualTo("Halo Kak!");
    assertThat(CampaignMessages.fill("{a|$1 \\\\ x} {}", Map.of())).isEqualTo("$1 \\\\ x {}");
  }

  @Test
  void onlyTheTextAndCaptionsAreFilledAndTheResultIsChecked() throws Exception {
    ObjectNode document =
        (ObjectNode)
            JSON.readTree(
                "{\"type\":\"document\",\"document\":{\"link\":\"https://x.example/a.pdf\","
                    + "\"filename\":\"{name}.pdf\",\"caption\":\"Untuk {name}\"}}");
    ObjectNode filled = CampaignMessages.personalise(document, Map.of("name", "Siti"));
    assertThat(filled.at("/document/caption").asText()).isEqualTo("Untuk Siti");
    assertThat(filled.at("/document/filename").asText()).isEqualTo("{name}.pdf");
    assertThat(document.at("/document/caption").asText()).isEqualTo("Untuk {name}");
    assertThat(CampaignMessages.request(filled, "+6281234500001").kind()).isEqualTo("document");

    ObjectNode text = (ObjectNode) JSON.readTree("{\"type\":\"text\",\"text\":{\"body\":\"{x}\"}}");
    ObjectNode empty = CampaignMessages.personalise(text, Map.of());
    assertThatThrownBy(() -> CampaignMessages.request(empty, "+6281234500001"))
        .isInstanceOf(ContentRefused.class);
  }

  @Test
  void quietHoursCrossMidnightInTheZone() {
    QuietHours q = QuietHours.DEFAULT;
    assertThat(q.isQuiet(Instant.parse("2026-03-10T13:59:00Z"), JAKARTA)).isFalse(); // 20:59
    assertThat(q.isQuiet(Instant.parse("2026-03-10T14:00:00Z"), JAKARTA)).isTrue(); // 21:00
    assertThat(q.isQuiet(Instant.parse("2026-03-10T22:59:59Z"), JAKARTA)).isTrue(); // 05:59
    assertThat(q.isQuiet(Instant.parse("2026-03-10T23:00:00Z"), JAKARTA)).isFalse(); // 06:00
    assertThat(q.endAfter(Instant.parse("2026-03-10T14:30:00Z"), JAKARTA))
        .isEqualTo(Instant.parse("2026-03-10T23:00:00Z"));
    assertThat(q.endAfter(Instant.parse("2026-03-10T20:00:00Z"), JAKARTA)) // 03:00 next day
        .isEqualTo(Instant.parse("2026-03-10T23:00:00Z"));
    QuietHours lunch = new QuietHours(LocalTime.of(12, 0), LocalTime.of(13, 0));
    assertThat(lunch.isQuiet(Instant.parse("2026-03-10T05:30:00Z"), JAKARTA)).isTrue();
    assertThat(lunch.isQuiet(Instant.parse("2026-03-10T06:00:00Z"), JAKARTA)).isFalse();
  }
}
