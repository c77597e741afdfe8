package io.kurir.driver;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * What a driver's route answers: status, content type, headers and body, written back as they are
 * by the HTTP layer. Immutable.
 */
public record DriverReply(
    int status, String contentType, Map<String, String> headers, byte[] body) {
  private static final ObjectMapper JSON = new ObjectMapper();

  public DriverReply {
    headers = Map.copyOf(headers);
    body = body.clone();
  }

  @Override
  public byte[] body() {
    return body.clone();
  }

  /** 200 with {@code value} as JSON (maps, lists, records, strings, numbers). */
  public static DriverReply json(Object value) {
    return json(200, value);
  }

  /** {@code status} with {@code value} as JSON. */
  public static DriverReply json(int status, Object value) {
    try {
      return new DriverReply(status, "application/json", Map.of(), JSON.writeValueAsBytes(value));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON: " + value.getClass().getName(), e);
    }
  }

  /** 200 with {@code text} as plain UTF-8 text. */
  public static DriverReply text(String text) {
    return new DriverReply(
        200, "text/plain; charset=utf-8", Map.of(), text.getBytes(StandardCharsets.UTF_8));
  }

  /** The body as UTF-8 text (tests, logs). */
  public String bodyText() {
    return new String(body, StandardCharsets.UTF_8);
  }
}
