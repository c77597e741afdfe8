package io.kurir.driver;

import java.time.Instant;

/** What a driver reports for one send. */
public sealed interface SendOutcome {

  /** The network accepted the message. */
  record Sent(Instant at) implements SendOutcome {}

  /** The recipient has no account on the network (or the group does not exist). */
  record NotFound() implements SendOutcome {}

  /** The sending device is not connected. */
  record PhoneOffline() implements SendOutcome {}

  /** Anything else; {@code detail} is for operators, not for API replies. */
  record Failed(String detail) implements SendOutcome {}
}
