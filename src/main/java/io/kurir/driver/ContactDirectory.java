package io.kurir.driver;

import java.time.Instant;
import java.util.Optional;

/**
 * What the core knows of a device's contacts, as a driver may ask and teach it: which phone number
 * stands behind a network id (a WAHA LID, a Meta BSUID), and what the network last said of a number
 * when it was checked. Kept per device, because a LID or a BSUID means something only to the
 * account that saw it. Thread-safe; calls may read or write the database.
 */
public interface ContactDirectory {

  /** The phone number known for {@code id} on {@code deviceId}. */
  Optional<String> phoneOf(long deviceId, ContactId id);

  /** The network id of kind {@code kind} known for the phone {@code e164} on {@code deviceId}. */
  Optional<ContactId> networkIdOf(long deviceId, String e164, ContactId.Kind kind);

  /**
   * Records that {@code e164} and {@code id} are one contact of {@code deviceId} (learned from a
   * lookup, a send's reply, a webhook). Idempotent; a later phone replaces an earlier one.
   */
  void learn(long deviceId, String e164, ContactId id);

  /**
   * Records that {@code deviceId} has met the network id {@code id} without learning its phone (a
   * message from it, a group's member list, a lookup that found no phone), so that a send to it is
   * accepted: the network gave the id to this device, so it reaches someone. Idempotent; a phone
   * learned later takes its place as where sends go. The default keeps nothing (a directory that
   * only wraps another for a test); the gateway's and the in-memory directory keep it.
   */
  default void heardFrom(long deviceId, ContactId id) {}

  /**
   * Whether {@code deviceId} has met the network id {@code id} (learned or heard from). The default
   * knows an id only by a phone learned for it.
   */
  default boolean knows(long deviceId, ContactId id) {
    return !id.isPhone() && phoneOf(deviceId, id).isPresent();
  }

  /** Whether {@code deviceId} has sent a message to {@code e164} or received one from it. */
  boolean hasTalkedTo(long deviceId, String e164);

  /** The last answer the network gave when {@code e164} was checked through {@code deviceId}. */
  Optional<CheckedNumber> lastCheck(long deviceId, String e164);

  /** Keeps the network's answer to a check of a number through {@code deviceId}. */
  void recordCheck(long deviceId, CheckedNumber check);

  /**
   * What a network answered when asked whether a number has an account.
   *
   * @param e164 the number asked about
   * @param exists whether it has an account
   * @param chatAddress the network's own address of it when it gave one (WhatsApp's canonical
   *     {@code <digits>@c.us}, which differs from the number asked for some Brazilian numbers)
   * @param at when the network answered
   */
  record CheckedNumber(String e164, boolean exists, Optional<String> chatAddress, Instant at) {}
}
