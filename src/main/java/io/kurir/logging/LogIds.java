package io.kurir.logging;

import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.MDC;

/**
 * The ids a log record is about, put in the MDC for as long as it is open: every record written
 * meanwhile on this thread carries them ({@code device_id}, {@code message_id}, …) as fields of the
 * JSON line or in brackets at the end of the text line, so an operator can find everything about
 * one message or device. Closing it puts back what the thread had before.
 *
 * <pre>{@code
 * try (var ids = LogIds.message(m.deviceId(), m.id())) {
 *   log.info("message {} failed", m.id());
 * }
 * }</pre>
 *
 * <p>Ids only: never a key, token or secret.
 */
public final class LogIds implements AutoCloseable {
  private final Map<String, String> before = new LinkedHashMap<>();

  private LogIds(Map<String, Long> ids) {
    ids.forEach(
        (key, value) -> {
          before.put(key, MDC.get(key));
          MDC.put(key, Long.toString(value));
        });
  }

  /** A record about a device. */
  public static LogIds device(long deviceId) {
    return new LogIds(Map.of("device_id", deviceId));
  }

  /** A record about one message of a device. */
  public static LogIds message(long deviceId, long messageId) {
    return new LogIds(orderedOf("device_id", deviceId, "message_id", messageId));
  }

  /** A record about one webhook delivery of a device. */
  public static LogIds webhook(long deviceId, long deliveryId) {
    return new LogIds(orderedOf("device_id", deviceId, "webhook_delivery_id", deliveryId));
  }

  /** A record about one scheduled message of a device. */
  public static LogIds schedule(long deviceId, long scheduleId) {
    return new LogIds(orderedOf("device_id", deviceId, "schedule_id", scheduleId));
  }

  private static Map<String, Long> orderedOf(String k1, long v1, String k2, long v2) {
    Map<String, Long> ids = new LinkedHashMap<>();
    ids.put(k1, v1);
    ids.put(k2, v2);
    return ids;
  }

  @Override
  public void close() {
    before.forEach(
        (key, value) -> {
          if (value == null) {
            MDC.remove(key);
          } else {
            MDC.put(key, value);
          }
        });
  }
}
