package io.kurir.content;

import java.util.Arrays;
import java.util.Optional;

/**
 * The kinds of message the Cloud API's message object has, by the {@code type} names Meta gives
 * them (business-messaging-api_v23.0.yaml, {@code Message}'s discriminator). Kurir's own API uses
 * the same names, and a driver declares which of them it can carry.
 */
public enum MessageKind {
  TEXT("text", false),
  IMAGE("image", true),
  VIDEO("video", true),
  AUDIO("audio", true),
  DOCUMENT("document", true),
  STICKER("sticker", true),
  LOCATION("location", false),
  CONTACTS("contacts", false),
  INTERACTIVE("interactive", false),
  TEMPLATE("template", false),
  REACTION("reaction", false);

  private final String wireName;
  private final boolean media;

  MessageKind(String wireName, boolean media) {
    this.wireName = wireName;
    this.media = media;
  }

  /** The name in {@code type}, and the name of the kind's object beside it. */
  public String wireName() {
    return wireName;
  }

  /** Whether the kind's object names a file ({@code link} or {@code id}). */
  public boolean isMedia() {
    return media;
  }

  /** The kind named {@code type} in a message object, if Meta's message object has it. */
  public static Optional<MessageKind> ofWireName(String type) {
    return Arrays.stream(values()).filter(k -> k.wireName.equals(type)).findFirst();
  }

  @Override
  public String toString() {
    return wireName;
  }
}
