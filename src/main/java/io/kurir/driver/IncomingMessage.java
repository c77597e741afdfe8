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
 * @param senderE164 who wrote it
 * @param groupId the group it was written in, or empty for a direct chat
 * @param text its text, or the caption of its media ("" when none)
 * @param media its image or file, kept by the driver under the gateway's data folder, if any
 * @param at when the network says it was sent
 * @param contactName the name the sender gave their account, when the network sends one (Meta's
 *     {@code contacts[].profile.name}); the incoming webhook's {@code contact_name} is the number
 *     without it
 */
public record IncomingMessage(
    long deviceId,
    Optional<String> networkId,
    String senderE164,
    Optional<String> groupId,
    String text,
    Optional<Media> media,
    Instant at,
    Optional<String> contactName) {

  public IncomingMessage {
    contactName = contactName.map(String::strip).filter(name -> !name.isEmpty());
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
        deviceId, networkId, senderE164, groupId, text, media, at, Optional.ofNullable(name));
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
