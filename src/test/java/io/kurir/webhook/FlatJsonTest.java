package io.kurir.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The event log's fields are written without Jackson's mapper, and must read exactly as the mapper
 * wrote them (events stored before and after the change sit side by side in one stream).
 */
class FlatJsonTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final List<String> AWKWARD =
      List.of(
          "",
          "plain",
          "quote \" and backslash \\ and slash /",
          "tab\there, newline\nthere, return\r, form\f, back\b",
          "controls \u0000 \u0001 \u001f \u007f",
          "non-ASCII: é, 你好, emoji 😀, line separator \u2028 and \u2029",
          "lone surrogate \ud83d end",
          "<script>&amp;</script>");

  @Test
  void plainFieldsReadExactlyAsTheMapperWritesThem() throws Exception {
    for (String text : AWKWARD) {
      Map<String, Object> fields = new LinkedHashMap<>();
      fields.put("message_id", "9001");
      fields.put("to", text);
      fields.put(text, "as a key too");
      fields.put("to_group", true);
      fields.put("read", false);
      fields.put("reason", null);
      fields.put("count", 42);
      fields.put("big", Long.MIN_VALUE);
      assertThat(FlatJson.objectOrNull(fields)).isEqualTo(JSON.writeValueAsString(fields));
    }
    assertThat(FlatJson.objectOrNull(Map.of())).isEqualTo("{}");
  }

  @Test
  void anythingButPlainFieldsIsLeftToTheMapper() {
    assertThat(FlatJson.objectOrNull(Map.of("nested", Map.of("a", 1)))).isNull();
    assertThat(FlatJson.objectOrNull(Map.of("list", List.of(1, 2)))).isNull();
    assertThat(FlatJson.objectOrNull(Map.of("decimal", 1.5))).isNull();
  }

  @Test
  void anEventReadsAsItsFieldsInTheEnvelopeTheMapperMadeOfThem() throws Exception {
    for (String text : AWKWARD) {
      Map<String, Object> data = new LinkedHashMap<>();
      data.put("message_id", "1");
      data.put("to", text);
      data.put("nested", Map.of("kept", List.of(text, true)));
      String stored = JSON.writeValueAsString(data);
      Events.Event event =
          new Events.Event(
              7L, 12345L, 153280512000002L, "message.status", Instant.ofEpochMilli(1), stored);

      Map<String, Object> envelope = new LinkedHashMap<>();
      envelope.put("sequence", 12345L);
      envelope.put("type", "message.status");
      envelope.put("timestamp", WebhookSender.EVENT_TIME.format(Instant.ofEpochMilli(1)));
      envelope.put("device", "153280512000002");
      envelope.put("data", JSON.readTree(stored));
      assertThat(event.json()).isEqualTo(JSON.writeValueAsString(envelope));
    }
  }
}
