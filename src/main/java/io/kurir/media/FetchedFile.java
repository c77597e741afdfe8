package io.kurir.media;

/**
 * A file fetched from a caller's URL.
 *
 * @param name a safe file name (from the URL's last path segment, or made up from the type)
 * @param mimeType the type read from the file's first bytes, not from the server's header
 * @param bytes the content
 */
public record FetchedFile(String name, String mimeType, byte[] bytes) {

  public boolean isImage() {
    return mimeType.startsWith("image/");
  }

  public long sizeKb() {
    return (bytes.length + 1023) / 1024;
  }
}
