package io.kurir.device;

import com.google.zxing.BarcodeFormat;
import com.google.zxing.BinaryBitmap;
import com.google.zxing.EncodeHintType;
import com.google.zxing.RGBLuminanceSource;
import com.google.zxing.ReaderException;
import com.google.zxing.WriterException;
import com.google.zxing.common.BitMatrix;
import com.google.zxing.common.HybridBinarizer;
import com.google.zxing.qrcode.QRCodeReader;
import com.google.zxing.qrcode.QRCodeWriter;
import com.google.zxing.qrcode.decoder.ErrorCorrectionLevel;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Base64;
import java.util.EnumMap;
import java.util.Map;
import javax.imageio.ImageIO;

/** Pairing payloads as QR codes: a PNG data URL for the API, text blocks for a terminal. */
public final class QrCodes {
  private static final int SIZE = 264;

  /** The quiet zone around the code, in modules: the 4 the QR standard asks for. */
  private static final int QUIET_ZONE = 4;

  private QrCodes() {}

  /** {@code data:image/png;base64,…} of a QR code that encodes {@code payload}. */
  public static String pngDataUrl(String payload) {
    BitMatrix matrix = encode(payload, SIZE, readableMask(payload));
    BufferedImage image =
        new BufferedImage(matrix.getWidth(), matrix.getHeight(), BufferedImage.TYPE_BYTE_BINARY);
    for (int y = 0; y < matrix.getHeight(); y++) {
      for (int x = 0; x < matrix.getWidth(); x++) {
        image.setRGB(x, y, matrix.get(x, y) ? 0x000000 : 0xFFFFFF);
      }
    }
    ByteArrayOutputStream png = new ByteArrayOutputStream();
    try {
      ImageIO.write(image, "png", png);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return "data:image/png;base64," + Base64.getEncoder().encodeToString(png.toByteArray());
  }

  /**
   * The QR code as text for a terminal: two modules per character with half blocks, light on dark
   * as phones expect, with the quiet zone around it.
   */
  public static String terminal(String payload) {
    BitMatrix m = encode(payload, 0, readableMask(payload));
    StringBuilder out = new StringBuilder();
    for (int y = 0; y < m.getHeight(); y += 2) {
      for (int x = 0; x < m.getWidth(); x++) {
        boolean top = m.get(x, y);
        boolean bottom = y + 1 < m.getHeight() && m.get(x, y + 1);
        out.append(top ? (bottom ? ' ' : '▄') : (bottom ? '▀' : '█'));
      }
      out.append('\n');
    }
    return out.toString();
  }

  /**
   * The code as the encoder chooses it, unless a reader cannot find it: about one payload in a
   * hundred gives a code whose data happens to look like a finder pattern to common readers. Then
   * the first of the eight mask patterns that reads back is used instead (any mask is valid QR).
   */
  private static Integer readableMask(String payload) {
    if (readsBack(encode(payload, SIZE, null), payload)) {
      return null; // the encoder's own choice
    }
    for (int mask = 0; mask < 8; mask++) {
      if (readsBack(encode(payload, SIZE, mask), payload)) {
        return mask;
      }
    }
    return null;
  }

  private static boolean readsBack(BitMatrix matrix, String payload) {
    int[] pixels = new int[matrix.getWidth() * matrix.getHeight()];
    for (int y = 0; y < matrix.getHeight(); y++) {
      for (int x = 0; x < matrix.getWidth(); x++) {
        pixels[y * matrix.getWidth() + x] = matrix.get(x, y) ? 0xFF000000 : 0xFFFFFFFF;
      }
    }
    var source = new RGBLuminanceSource(matrix.getWidth(), matrix.getHeight(), pixels);
    try {
      return new QRCodeReader()
          .decode(new BinaryBitmap(new HybridBinarizer(source)))
          .getText()
          .equals(payload);
    } catch (ReaderException e) {
      return false;
    }
  }

  private static BitMatrix encode(String payload, int size, Integer mask) {
    Map<EncodeHintType, Object> hints = new EnumMap<>(EncodeHintType.class);
    hints.put(EncodeHintType.ERROR_CORRECTION, ErrorCorrectionLevel.M);
    hints.put(EncodeHintType.MARGIN, QUIET_ZONE);
    if (mask != null) {
      hints.put(EncodeHintType.QR_MASK_PATTERN, mask);
    }
    try {
      return new QRCodeWriter().encode(payload, BarcodeFormat.QR_CODE, size, size, hints);
    } catch (WriterException e) {
      throw new IllegalArgumentException("cannot encode the pairing code as a QR code", e);
    }
  }
}
