package io.kurir.driver;

import java.util.Locale;

/** How drivers name the files of incoming messages they keep: one way for every driver. */
public final class ReceivedFiles {
  private ReceivedFiles() {}

  /** A network's message id as a file name: safe characters only, at most 120 of them. */
  public static String safeName(String id) {
    String s = id.replaceAll("[^A-Za-z0-9_-]", "_");
    return s.length() > 120 ? s.substring(s.length() - 120) : s;
  }

  /** The extension of the file's own name when it has a plausible one, else one for its type. */
  public static String extension(String mime, String filename) {
    int dot = filename.lastIndexOf('.');
    if (dot > 0 && filename.substring(dot).matches("\\.[A-Za-z0-9]{1,8}")) {
      return filename.substring(dot).toLowerCase(Locale.ROOT);
    }
    return switch (mime.split(";")[0].strip()) {
      case "image/jpeg" -> ".jpg";
      case "image/png" -> ".png";
      case "image/webp" -> ".webp";
      case "application/pdf" -> ".pdf";
      case "video/mp4" -> ".mp4";
      case "audio/ogg" -> ".ogg";
      case "audio/mpeg" -> ".mp3";
      default -> ".bin";
    };
  }
}
