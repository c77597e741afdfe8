package io.kurir.api.eco;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.Device;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code /api/generate_qr}: a real QR code that a sandbox phone scans, and that expires. */
class QrPairingTest {
  @TempDir Path dir;
  SettableClock clock = TestGateway.settableClock();
  TestGateway kurir;
  Device device;

  @BeforeEach
  void start() {
    kurir = TestGateway.start(dir, clock);
    device = kurir.newDevice("+6281100006001", false);
  }

  @AfterEach
  void stop() {
    kurir.close();
  }

  private String generateQr() {
    return kurir.postJson("/api/generate_qr", "{\"key\":\"" + device.ecoKey() + "\"}").body();
  }

  private Reply scan(String code) {
    return kurir.post(
        "/sandbox/scan",
        "{\"code\":\"" + code + "\"}",
        "application/json",
        "Authorization",
        "Bearer " + TestGateway.ADMIN_TOKEN);
  }

  /** What a phone's camera reads from the data URL. */
  private static String decode(String dataUrl) throws Exception {
    return io.kurir.testing.QrCamera.read(dataUrl);
  }

  @Test
  void scanningTheQrCodePairsTheDevice() throws Exception {
    String code = decode(generateQr());
    assertThat(decode(generateQr())).as("the same code while it is valid").isEqualTo(code);

    assertThat(scan(code).status()).isEqualTo(200);
    assertThat(kurir.postJson("/api/qr_status", "{\"key\":\"" + device.ecoKey() + "\"}").body())
        .isEqualTo("online");
    assertThat(generateQr()).as("paired already: log out first").isEqualTo("success");
    assertThat(scan(code).status()).as("a code pairs once").isEqualTo(409);

    kurir.postJson("/api/logout", "{\"key\":\"" + device.ecoKey() + "\"}");
    assertThat(generateQr()).startsWith("data:image/png;base64,");
  }

  @Test
  void anExpiredCodeCannotPairAndANewOneIsShown() throws Exception {
    String first = decode(generateQr());
    clock.advance(Duration.ofSeconds(21));

    Reply late = scan(first);
    assertThat(late.status()).isEqualTo(409);
    assertThat(late.body()).contains("code_not_valid");
    String second = decode(generateQr());
    assertThat(second).isNotEqualTo(first);
    assertThat(scan(second).status()).isEqualTo(200);
  }
}
