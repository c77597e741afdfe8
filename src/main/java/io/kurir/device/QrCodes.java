package io.kurir.device;

import com.google.zxing.BarcodeFormat;
import com.google.zxing.EncodeHintType;
import com.google.zxing.WriterException;
import com.google.zxing.common.BitMatrix;
import com.google.zxing.qrcode.QRCodeWriter;
import com.google.zxing.qrcode.decoder.ErrorCorrectionLevel;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Base64;
import java.util.Map;
import javax.imageio.ImageIO;

/** Pairing payloads as QR codes: a PNG data URL for the API, text blocks for a terminal. */
public final class QrCodes {
  private static final int SIZE = 264;

  private QrCodes() {}

  /** {@code data:image/png;base64,…} of a QR code that encodes {@code payload}. */
  public static String pngDataUrl(String payload) {
    BitMatrix matrix = encode(payload, SIZE);
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
    BitMatrix m = encode(payload, 0);
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

  private static BitMatrix encode(String payload, int size) {
    try {
      return new QRCodeWriter()
          .encode(
              payload,
              BarcodeFormat.QR_CODE,
              size,
              size,
              Map.of(
                  EncodeHintType.ERROR_CORRECTION,
                  ErrorCorrectionLevel.M,
                  EncodeHintType.MARGIN,
                  2));
    } catch (WriterException e) {
      throw new IllegalArgumentException("cannot encode the pairing code as a QR code", e);
    }
  }
}
