package io.kurir.driver.gowa;

import com.google.zxing.BarcodeFormat;
import com.google.zxing.BinaryBitmap;
import com.google.zxing.DecodeHintType;
import com.google.zxing.RGBLuminanceSource;
import com.google.zxing.ReaderException;
import com.google.zxing.common.HybridBinarizer;
import com.google.zxing.qrcode.QRCodeReader;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.imageio.ImageIO;

/**
 * The pairing payload in GOWA's login QR code. GOWA answers a login with a link to a PNG it wrote
 * ({@code qr_link}), never the payload itself; Kurir reads the payload back out of the picture, so
 * that {@code generate_qr} draws it as for every driver (a PNG data URL) and {@code ./kurir admin
 * device qr} can print it in a terminal (docs/decisions.md, "GOWA's login QR code").
 */
final class GowaQr {
  private GowaQr() {}

  /** The text the QR code in {@code png} encodes; empty when it holds none that can be read. */
  static Optional<String> payload(byte[] png) {
    BufferedImage image;
    try {
      image = ImageIO.read(new ByteArrayInputStream(png));
    } catch (IOException e) {
      return Optional.empty();
    }
    if (image == null) {
      return Optional.empty();
    }
    int w = image.getWidth();
    int h = image.getHeight();
    int[] pixels = image.getRGB(0, 0, w, h, null, 0, w);
    var source = new RGBLuminanceSource(w, h, pixels);
    try {
      String text =
          new QRCodeReader()
              .decode(
                  new BinaryBitmap(new HybridBinarizer(source)),
                  Map.of(
                      DecodeHintType.TRY_HARDER,
                      Boolean.TRUE,
                      DecodeHintType.POSSIBLE_FORMATS,
                      List.of(BarcodeFormat.QR_CODE)))
              .getText();
      return text == null || text.isBlank() ? Optional.empty() : Optional.of(text);
    } catch (ReaderException e) {
      return Optional.empty();
    }
  }
}
