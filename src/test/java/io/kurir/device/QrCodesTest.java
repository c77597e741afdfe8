package io.kurir.device;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.zxing.BinaryBitmap;
import com.google.zxing.client.j2se.BufferedImageLuminanceSource;
import com.google.zxing.common.HybridBinarizer;
import com.google.zxing.qrcode.QRCodeReader;
import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

class QrCodesTest {
  /**
   * About one payload in a hundred used to give a code a reader could not find; these seeds include
   * such payloads, and every one must now read back.
   */
  @Test
  void everyPairingCodeReadsBackFromItsPng() throws Exception {
    Random random = new Random(1);
    List<String> unreadable = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      String payload =
          "kurir-pair:"
              + Long.toString(random.nextLong() & Long.MAX_VALUE, 36)
              + Long.toString(random.nextLong() & Long.MAX_VALUE, 36);
      String dataUrl = QrCodes.pngDataUrl(payload);
      byte[] png = Base64.getDecoder().decode(dataUrl.substring(dataUrl.indexOf(',') + 1));
      var image = ImageIO.read(new ByteArrayInputStream(png));
      var bitmap = new BinaryBitmap(new HybridBinarizer(new BufferedImageLuminanceSource(image)));
      try {
        assertThat(new QRCodeReader().decode(bitmap).getText()).isEqualTo(payload);
      } catch (com.google.zxing.ReaderException e) {
        unreadable.add(payload);
      }
    }
    assertThat(unreadable).isEmpty();
  }
}
