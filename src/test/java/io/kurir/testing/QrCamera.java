package io.kurir.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.zxing.BinaryBitmap;
import com.google.zxing.client.j2se.BufferedImageLuminanceSource;
import com.google.zxing.common.HybridBinarizer;
import com.google.zxing.qrcode.QRCodeReader;
import java.io.ByteArrayInputStream;
import java.util.Base64;
import javax.imageio.ImageIO;

/** A phone's camera, for tests: reads the QR code of a {@code data:image/png;base64,…} URL. */
public final class QrCamera {
  private QrCamera() {}

  /** What the QR code in {@code dataUrl} encodes. */
  public static String read(String dataUrl) throws Exception {
    assertThat(dataUrl).startsWith("data:image/png;base64,");
    byte[] png = Base64.getDecoder().decode(dataUrl.substring("data:image/png;base64,".length()));
    var image = ImageIO.read(new ByteArrayInputStream(png));
    var bitmap = new BinaryBitmap(new HybridBinarizer(new BufferedImageLuminanceSource(image)));
    return new QRCodeReader().decode(bitmap).getText();
  }
}
