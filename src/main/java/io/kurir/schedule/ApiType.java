package io.kurir.schedule;

import java.util.Locale;
import java.util.Optional;

/** What a schedule sends ({@code api_type}): text, an image with or without text, or a file. */
public enum ApiType {
  TEXT("text"),
  IMAGE_TEXT("image"),
  IMAGE("image"),
  FILE("file");

  private final String kind;

  ApiType(String kind) {
    this.kind = kind;
  }

  /** The name in requests, records and the database, e.g. {@code image_text}. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Optional<ApiType> ofWireName(String name) {
    for (ApiType t : values()) {
      if (t.wireName().equals(name.strip().toLowerCase(Locale.ROOT))) {
        return Optional.of(t);
      }
    }
    return Optional.empty();
  }

  /** The message kind it becomes: {@code text}, {@code image} or {@code file}. */
  public String kind() {
    return kind;
  }

  /** The types that carry text as their point ({@code message_empty} without it). */
  public boolean needsMessage() {
    return this == TEXT || this == IMAGE_TEXT;
  }

  /** The types that send what their URL points at ({@code url_empty} without it). */
  public boolean needsUrl() {
    return this != TEXT;
  }

  public boolean isImage() {
    return this == IMAGE || this == IMAGE_TEXT;
  }
}
