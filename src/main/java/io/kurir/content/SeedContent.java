package io.kurir.content;

/**
 * The content of a message the seed families send ({@code text}, {@code image}, {@code file}): a
 * text, an image with its caption, a document with its caption and file name. Their rows keep no
 * content of their own; they read as these.
 */
public final class SeedContent {
  private SeedContent() {}

  /**
   * The content of a seed message of kind {@code kind} with text or caption {@code body}.
   *
   * @param fileName the name of its file ("" when none or not yet fetched)
   */
  public static MessageContent of(String kind, String body, boolean linkPreview, String fileName) {
    Content content =
        switch (kind) {
          case "image" -> new Content.Image(MediaSource.NONE, body);
          case "file" -> new Content.Document(MediaSource.NONE, body, fileName);
          default -> new Content.Text(body, linkPreview);
        };
    return MessageContent.of(content);
  }

  /** Whether {@code kind} is a seed family's kind rather than one of {@link MessageKind}'s. */
  public static boolean isSeedKind(String kind) {
    return kind.equals("text") || kind.equals("image") || kind.equals("file");
  }
}
