package io.kurir.message;

import java.util.Locale;
import java.util.Set;

/**
 * Where a message is: {@code pending → sending → sent → delivery → read}, or {@code failed} with a
 * reason. {@code sending} is an attempt committed before the driver is called: its outcome is not
 * known yet. States move forward, except that an attempt that did not happen (the device was not
 * connected, a retry after a failure) puts the message back to {@code pending}; a late receipt
 * (delivered after read) changes nothing.
 */
public enum MessageState {
  PENDING,
  SENDING,
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
      case PENDING -> Set.of(SENDING);
      case SENDING -> Set.of(PENDING);
      // A receipt may be recorded before the sender's own "sent" commit; it then covers both.
      case SENT -> Set.of(SENDING);
      case DELIVERY -> Set.of(SENDING, SENT);
      case READ -> Set.of(SENDING, SENT, DELIVERY);
      // Withdrawn or cancelled before it went out, a failed attempt, or a network that took the
      // message and then reports that it failed after all.
      case FAILED -> Set.of(PENDING, SENDING, SENT);
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
