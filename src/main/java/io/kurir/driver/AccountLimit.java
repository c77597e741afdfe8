package io.kurir.driver;

import java.util.Locale;

/**
 * A limit the network put on an account for reaching too many new contacts, as an engine reports it
 * ({@link DriverListener#limitReached}): a ban signal for whoever sends in bulk from the device.
 */
public enum AccountLimit {
  /**
   * WhatsApp's message capping reached {@code CAPPED}: the account's quota of new chats for the
   * cycle is used up (WAHA's {@code me.messageCapping.cappingStatus}).
   */
  MESSAGE_CAPPED,

  /**
   * WhatsApp's reach-out time lock: sends to contacts the account never talked with are refused
   * with error 463 until it ends (WAHA's {@code me.reachoutTimelock}).
   */
  REACH_OUT_LOCKED;

  /** The name stored and shown ({@code message_capped}, {@code reach_out_locked}). */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
