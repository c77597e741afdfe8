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

  /**
   * The type of a video or an audio recording by its container's first bytes: MP4, 3GP and
   * QuickTime ({@code ftyp}; brand {@code M4A} is audio), Matroska and WebM, AVI and WAV (RIFF),
   * Ogg, MP3 (an ID3 tag or an MPEG frame), AAC (ADTS), AMR, FLAC. Empty when none of these. Not
   * part of {@link #sniff}: the seed families' files keep the type they always had.
   */
  public static java.util.Optional<String> recording(byte[] b) {
    String type = null;
    if (b.length >= 12 && b[4] == 'f' && b[5] == 't' && b[6] == 'y' && b[7] == 'p') {
      String brand = new String(b, 8, 4, java.nio.charset.StandardCharsets.ISO_8859_1);
      type =
          brand.startsWith("M4A") || brand.startsWith("M4B")
              ? "audio/mp4"
              : brand.startsWith("3g")
                  ? "video/3gpp"
                  : brand.equals("qt  ") ? "video/quicktime" : "video/mp4";
    } else if (starts(b, 0x1A, 0x45, 0xDF, 0xA3)) {
      String head =
          new String(b, 0, Math.min(b.length, 64), java.nio.charset.StandardCharsets.ISO_8859_1);
      type = head.contains("webm") ? "video/webm" : "video/x-matroska";
    } else if (b.length >= 12 && starts(b, 'R', 'I', 'F', 'F')) {
      String form = new String(b, 8, 4, java.nio.charset.StandardCharsets.ISO_8859_1);
      type = form.equals("AVI ") ? "video/x-msvideo" : form.equals("WAVE") ? "audio/wav" : null;
    } else if (starts(b, 'O', 'g', 'g', 'S')) {
      type = "audio/ogg";
    } else if (starts(b, 'I', 'D', '3')
        || starts(b, 0xFF, 0xFB)
        || starts(b, 0xFF, 0xF3)
        || starts(b, 0xFF, 0xF2)) {
      type = "audio/mpeg";
    } else if (starts(b, 0xFF, 0xF1) || starts(b, 0xFF, 0xF9)) {
      type = "audio/aac";
    } else if (starts(b, '#', '!', 'A', 'M', 'R')) {
      type = "audio/amr";
    } else if (starts(b, 'f', 'L', 'a', 'C')) {
      type = "audio/flac";
    }
    return java.util.Optional.ofNullable(type);
  }

  /**
   * The type of {@code bytes} named {@code name}: {@link #sniff}, made precise by the name's
   * extension where the content alone cannot tell (Word, Excel and PowerPoint files are ZIP or OLE2
   * containers; a text file has no magic number), so that a network that takes only some document
   * types (the Cloud API) is told what the file is. The extension alone never decides: a {@code
   * .docx} that is no ZIP keeps its sniffed type.
   */
  public static String typeOf(byte[] b, String name) {
    String sniffed = sniff(b);
    String ext = name.substring(name.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
    if (sniffed.equals("application/zip")) {
      return switch (ext) {
        case "docx" -> "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
        case "xlsx" -> "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
        case "pptx" -> "application/vnd.openxmlformats-officedocument.presentationml.presentation";
        default -> sniffed;
      };
    }
    if (sniffed.equals("application/octet-stream")
        && starts(b, 0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1)) { // OLE2 compound file
      return switch (ext) {
        case "doc" -> "application/msword";
        case "xls" -> "application/vnd.ms-excel";
        case "ppt" -> "application/vnd.ms-powerpoint";
        default -> sniffed;
      };
    }
    if (sniffed.equals("application/octet-stream") && ext.equals("txt") && isText(b)) {
      return "text/plain";
    }
    return sniffed;
  }

  /** Valid UTF-8 with no control characters but tab, line feed and carriage return. */
  private static boolean isText(byte[] b) {
    try {
      String text =
          java.nio.charset.StandardCharsets.UTF_8
              .newDecoder()
              .decode(java.nio.ByteBuffer.wrap(b))
              .toString();
      return text.chars().noneMatch(c -> c < 0x20 && c != '\t' && c != '\n' && c != '\r');
    } catch (java.nio.charset.CharacterCodingException e) {
      return false;
    }
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
