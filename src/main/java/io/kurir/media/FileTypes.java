package io.kurir.media;

import java.net.URI;
import java.util.Locale;
import java.util.regex.Pattern;

/** File types read from content, and safe file names. */
public final class FileTypes {
  private static final Pattern UNSAFE = Pattern.compile("[^A-Za-z0-9._-]");

  private FileTypes() {}

  /** The type of {@code bytes} from their first bytes (magic numbers). */
  public static String sniff(byte[] b) {
    if (starts(b, 0x89, 'P', 'N', 'G')) {
      return "image/png";
    }
    if (starts(b, 0xFF, 0xD8, 0xFF)) {
      return "image/jpeg";
    }
    if (starts(b, 'G', 'I', 'F', '8')) {
      return "image/gif";
    }
    if (b.length >= 12
        && starts(b, 'R', 'I', 'F', 'F')
        && b[8] == 'W'
        && b[9] == 'E'
        && b[10] == 'B'
        && b[11] == 'P') {
      return "image/webp";
    }
    if (starts(b, '%', 'P', 'D', 'F')) {
      return "application/pdf";
    }
    if (starts(b, 'P', 'K', 3, 4)) {
      return "application/zip"; // also docx, xlsx, pptx
    }
    return "application/octet-stream";
  }

  private static boolean starts(byte[] b, int... magic) {
    if (b.length < magic.length) {
      return false;
    }
    for (int i = 0; i < magic.length; i++) {
      if ((b[i] & 0xff) != magic[i]) {
        return false;
      }
    }
    return true;
  }

  /**
   * A file name for content of {@code type} fetched from {@code uri}: the URL's last path segment
   * with anything but letters, digits, dots, dashes and underscores replaced, never a path; made up
   * from the type when the URL has none.
   */
  public static String nameFor(URI uri, String type) {
    String path = uri.getPath() == null ? "" : uri.getPath();
    String last = path.substring(path.lastIndexOf('/') + 1);
    String safe = sanitize(last);
    if (safe.isEmpty() || safe.chars().allMatch(c -> c == '.')) {
      safe = "file";
    }
    if (!safe.contains(".")) {
      safe = safe + extensionOf(type);
    }
    return safe;
  }

  /** Letters, digits, dots, dashes and underscores only; no leading dots; at most 100 chars. */
  public static String sanitize(String name) {
    String s = UNSAFE.matcher(name).replaceAll("_");
    while (s.startsWith(".")) {
      s = s.substring(1);
    }
    return s.length() > 100 ? s.substring(s.length() - 100) : s;
  }

  static String extensionOf(String type) {
    return switch (type.toLowerCase(Locale.ROOT)) {
      case "image/png" -> ".png";
      case "image/jpeg" -> ".jpg";
      case "image/gif" -> ".gif";
      case "image/webp" -> ".webp";
      case "application/pdf" -> ".pdf";
      case "application/zip" -> ".zip";
      default -> ".bin";
    };
  }
}
