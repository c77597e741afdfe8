package io.kurir.driver;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * A message that arrived at a device, as a driver reports it.
 *
 * @param deviceId the device it arrived at
 * @param networkId the network's id of the message: a redelivery with the same id is dropped, with
 *     its auto-reply and its webhook; empty only for networks that have none
 * @param senderE164 who wrote it, as E.164 digits; empty when the network gave only {@code
 *     senderId}
 * @param groupId the group it was written in, or empty for a direct chat
 * @param text its text, or the caption of its media ("" when none)
 * @param media its image or file, kept by the driver under the gateway's data folder, if any
 * @param at when the network says it was sent
 * @param contactName the name the sender gave their account, when the network sends one (Meta's
 *     {@code contacts[].profile.name}); the incoming webhook's {@code contact_name} is the number
 *     without it
 * @param senderId the network's own id of the sender when it gave one in place of, or beside, the
 *     phone number (a WAHA LID, a Meta BSUID); empty for a sender known by number alone
 */
public record IncomingMessage(
    long deviceId,
    Optional<String> networkId,
    String senderE164,
    Optional<String> groupId,
    String text,
    Optional<Media> media,
    Instant at,
    Optional<String> contactName,
    Optional<ContactId> senderId) {

  public IncomingMessage {
    contactName = contactName.map(String::strip).filter(name -> !name.isEmpty());
    senderId = senderId.filter(id -> !id.isPhone());
    if (senderE164.isEmpty() && senderId.isEmpty()) {
      throw new IllegalArgumentException("an incoming message names its sender");
    }
  }

  /** A message from a sender known by number, with the name the network gave for it. */
  public IncomingMessage(
      long deviceId,
      Optional<String> networkId,
      String senderE164,
      Optional<String> groupId,
      String text,
      Optional<Media> media,
      Instant at,
      Optional<String> contactName) {
    this(deviceId, networkId, senderE164, groupId, text, media, at, contactName, Optional.empty());
  }

  /** A message whose network sent no name for its sender. */
  public IncomingMessage(
      long deviceId,
      Optional<String> networkId,
      String senderE164,
      Optional<String> groupId,
      String text,
      Optional<Media> media,
      Instant at) {
    this(deviceId, networkId, senderE164, groupId, text, media, at, Optional.empty());
  }

  /** The same message, from a sender whose account is named {@code name} (blank: no name). */
  public IncomingMessage withContactName(String name) {
    return new IncomingMessage(
        deviceId,
        networkId,
        senderE164,
        groupId,
        text,
        media,
        at,
        Optional.ofNullable(name),
        senderId);
  }

  /**
   * The same message, its sender known as {@code e164} (a phone learned for a network id); the
   * network id stays.
   */
  public IncomingMessage withSenderPhone(String e164) {
    return new IncomingMessage(
        deviceId, networkId, e164, groupId, text, media, at, contactName, senderId);
  }

  /** Who wrote it, for people: the phone number when known, else the network's id of them. */
  public String senderAddress() {
    return senderE164.isEmpty() ? senderId.orElseThrow().address() : senderE164;
  }

  /** An image or file that came with an incoming message. */
  public record Media(String kind, String mimeType, Path path) {}

  /** A direct text message. */
  public static IncomingMessage text(
      long deviceId, String networkId, String senderE164, String text, Instant at) {
    return new IncomingMessage(
        deviceId,
        Optional.ofNullable(networkId),
        senderE164,
        Optional.empty(),
        text,
        Optional.empty(),
        at);
  }
}
