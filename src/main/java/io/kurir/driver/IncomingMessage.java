package io.kurir.driver;

import io.kurir.content.Content;
import io.kurir.content.MediaSource;
import io.kurir.content.MessageContent;
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
 * @param content what it says, in the Cloud API message object's terms (a location, a contact card,
 *     a reaction, a voice note…), when the driver read a kind; empty for a plain text or an image
 *     or file it reported by {@code media} alone ({@link #asContent} reads those). A media kind's
 *     file is {@code media}, its content names no source.
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
    Optional<ContactId> senderId,
    Optional<MessageContent> content) {

  public IncomingMessage {
    contactName = contactName.map(String::strip).filter(name -> !name.isEmpty());
    senderId = senderId.filter(id -> !id.isPhone());
    if (senderE164.isEmpty() && senderId.isEmpty()) {
      throw new IllegalArgumentException("an incoming message names its sender");
    }
  }

  /** A message of no kind of its own: a text, or the image or file in {@code media}. */
  public IncomingMessage(
      long deviceId,
      Optional<String> networkId,
      String senderE164,
      Optional<String> groupId,
      String text,
      Optional<Media> media,
      Instant at,
      Optional<String> contactName,
      Optional<ContactId> senderId) {
    this(
        deviceId,
        networkId,
        senderE164,
        groupId,
        text,
        media,
        at,
        contactName,
        senderId,
        Optional.empty());
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
        senderId,
        content);
  }

  /**
   * The same message, its sender known as {@code e164} (a phone learned for a network id); the
   * network id stays.
   */
  public IncomingMessage withSenderPhone(String e164) {
    return new IncomingMessage(
        deviceId, networkId, e164, groupId, text, media, at, contactName, senderId, content);
  }

  /** The same message, saying {@code newContent}; its text stays. */
  public IncomingMessage withContent(MessageContent newContent) {
    return new IncomingMessage(
        deviceId,
        networkId,
        senderE164,
        groupId,
        text,
        media,
        at,
        contactName,
        senderId,
        Optional.of(newContent));
  }

  /**
   * What it says: its content, or a text, or for a message reported by its media alone an image or
   * a document with the text as its caption.
   */
  public MessageContent asContent() {
    if (content.isPresent()) {
      return content.get();
    }
    if (media.isEmpty()) {
      return MessageContent.of(new Content.Text(text, false));
    }
    Media m = media.get();
    return MessageContent.of(
        switch (m.kind()) {
          case "image" -> new Content.Image(MediaSource.NONE, text);
          case "video" -> new Content.Video(MediaSource.NONE, text);
          case "audio" -> new Content.Audio(MediaSource.NONE, false);
          case "sticker" -> new Content.Sticker(MediaSource.NONE, false);
          default ->
              new Content.Document(MediaSource.NONE, text, m.path().getFileName().toString());
        });
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
