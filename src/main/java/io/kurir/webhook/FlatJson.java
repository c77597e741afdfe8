package io.kurir.webhook;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;

/**
 * A JSON object of plain fields (text, true/false, whole numbers, null) written as Jackson's
 * ObjectMapper writes it, character for character, without its serializer lookups: the event log's
 * events are made on the writer's thread, one per status change, where the mapper took an eighth of
 * the writer's time in the sync benchmark (docs/performance.md, seventh pass). Anything else (a
 * nested object, a list, a decimal) is written by the mapper.
 */
final class FlatJson {
  private static final ObjectMapper JSON = new ObjectMapper();

  private FlatJson() {}

  /** {@code fields} as a JSON object, in their iteration order. */
  static String write(Map<String, ?> fields) {
    String flat = objectOrNull(fields);
    if (flat != null) {
      return flat;
    }
    try {
      return JSON.writeValueAsString(fields);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** {@code fields} as a JSON object in their iteration order, or null if one is not plain. */
  static String objectOrNull(Map<String, ?> fields) {
    StringBuilder out = new StringBuilder(32 + fields.size() * 24);
    out.append('{');
    boolean first = true;
    for (Map.Entry<String, ?> field : fields.entrySet()) {
      if (!first) {
        out.append(',');
      }
      first = false;
      quoted(out, field.getKey());
      out.append(':');
      Object value = field.getValue();
      if (value == null) {
        out.append("null");
      } else if (value instanceof String text) {
        quoted(out, text);
      } else if (value instanceof Boolean flag) {
        out.append(flag.booleanValue());
      } else if (value instanceof Long || value instanceof Integer) {
        out.append(((Number) value).longValue());
      } else {
        return null;
      }
    }
    return out.append('}').toString();
  }

  /** {@code text} as a JSON string, escaped as Jackson's generator escapes it by default. */
  static void quoted(StringBuilder out, String text) {
    out.append('"').append(JsonStringEncoder.getInstance().quoteAsString(text)).append('"');
  }
}
