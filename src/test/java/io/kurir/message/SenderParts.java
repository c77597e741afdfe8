package io.kurir.message;

import java.time.Instant;
import java.util.Optional;

/** Messages for the tests of a device sender's parts, built as an accept builds them. */
final class SenderParts {
  private SenderParts() {}

  /** A pending text message {@code id} of {@code deviceId} to {@code to}, due at {@code at}. */
  static Message message(long id, long deviceId, String to, boolean sync, Instant at) {
    return new Message(
        id,
        deviceId,
        to,
        false,
        "text",
        "hello " + id,
        "test",
        sync,
        false,
        0,
        MessageState.PENDING,
        Optional.empty(),
        at,
        at,
        Optional.empty(),
        at,
        Optional.empty(),
        Optional.empty(),
        false);
  }
}
