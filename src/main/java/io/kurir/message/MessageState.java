package io.kurir.message;

import java.util.Locale;
import java.util.Set;

/**
 * Where a message is: {@code pending → sent → delivery → read}, or {@code failed} with a reason.
 * States only move forward; a late receipt (delivered after read) changes nothing.
 */
public enum MessageState {
  PENDING,
  SENT,
  DELIVERY,
  READ,
  FAILED;

  /** The name stored in the database and shown in replies. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static MessageState ofWireName(String name) {
    return valueOf(name.toUpperCase(Locale.ROOT));
  }

  /** The states from which this one can be reached. */
  public Set<MessageState> predecessors() {
    return switch (this) {
      case PENDING -> Set.of();
      // A receipt may be recorded before the sender's own "sent" commit; it then covers both.
      case SENT -> Set.of(PENDING);
      case DELIVERY -> Set.of(PENDING, SENT);
      case READ -> Set.of(PENDING, SENT, DELIVERY);
      case FAILED -> Set.of(PENDING);
    };
  }

  public boolean canMoveTo(MessageState next) {
    return next.predecessors().contains(this);
  }

  /** Whether the message has left the device. */
  public boolean wentOut() {
    return this == SENT || this == DELIVERY || this == READ;
  }
}
