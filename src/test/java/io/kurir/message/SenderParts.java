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

  /**
   * {@link #message}, not due before a day after {@code at}: no sender claims it, even one started
   * for the device by something the test does not control.
   */
  static Message notDue(long id, long deviceId, String to, Instant at) {
    Message m = message(id, deviceId, to, false, at);
    return new Message(
        m.id(),
        m.deviceId(),
        m.recipient(),
        m.toGroup(),
        m.kind(),
        m.body(),
        m.api(),
        m.sync(),
        m.retry(),
        m.attempts(),
        m.state(),
        m.reason(),
        at.plus(java.time.Duration.ofDays(1)),
        m.createdAt(),
        m.sentAt(),
        m.statusAt(),
        m.media(),
        m.mediaUrl(),
        m.linkPreview(),
        m.content());
  }
}
