package io.kurir;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.TestGateway;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./kurir admin device qr}: the QR code in a terminal, until the phone scans it. */
class PairingQrTest {
  @TempDir Path dir;
  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final ByteArrayOutputStream err = new ByteArrayOutputStream();

  @Test
  void showsTheCodeAndReturnsOnceTheDeviceIsPaired() throws Exception {
    try (TestGateway kurir = TestGateway.start(dir)) {
      Device device = kurir.newDevice("+6281100007001", false);
      CompletableFuture<Integer> command = qrOf(kurir, device, TestGateway.ADMIN_TOKEN);

      Eventually.until(
          "the code is shown",
          () -> out.toString(StandardCharsets.UTF_8).contains("Scan this code"));
      assertThat(out.toString(StandardCharsets.UTF_8)).contains("█");
      String payload =
          new com.fasterxml.jackson.databind.ObjectMapper()
              .readTree(
                  kurir
                      .post(
                          "/admin/devices/" + device.id() + "/pairing",
                          "",
                          null,
                          "Authorization",
                          "Bearer " + TestGateway.ADMIN_TOKEN)
                      .body())
              .get("payload")
              .asText();
      assertThat(kurir.sandbox().scan(payload)).contains(device.id());

      assertThat(command.get(Eventually.GUARD.toSeconds(), TimeUnit.SECONDS)).isZero();
      assertThat(out.toString(StandardCharsets.UTF_8)).contains("is paired (online)");
    }
  }

  /** {@code device qr} for {@code device} of a running gateway, under way in the background. */
  private CompletableFuture<Integer> qrOf(TestGateway kurir, Device device, String token) {
    return CompletableFuture.supplyAsync(
        () ->
            qr(
                "device",
                "qr",
                Long.toString(device.id()),
                "--url",
                kurir.gateway().baseUrl(),
                "--token",
                token));
  }

  private int qr(String... args) {
    return AdminCommand.run(
        List.of(args),
        Map.of(),
        dir.resolve("cli"),
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void aSandboxDeviceWithoutTheSandboxApiIsRefusedWithWhatToChange() throws Exception {
    try (TestGateway kurir = TestGateway.start(dir, "--sandbox.api=false")) {
      Device device = kurir.newDevice("+6281100007002", false);
      int code =
          qrOf(kurir, device, TestGateway.ADMIN_TOKEN)
              .get(Eventually.GUARD.toSeconds(), TimeUnit.SECONDS);

      assertThat(code).isEqualTo(1);
      assertThat(out.toString(StandardCharsets.UTF_8)).as("no code shown").doesNotContain("█");
      assertThat(err.toString(StandardCharsets.UTF_8))
          .contains("sandbox API")
          .contains("drivers.sandbox.api=true");
      TestGateway.Reply reply =
          kurir.post(
              "/admin/devices/" + device.id() + "/pairing",
              "",
              null,
              "Authorization",
              "Bearer " + TestGateway.ADMIN_TOKEN);
      assertThat(reply.status()).isEqualTo(409);
      assertThat(reply.body()).contains("\"pairing_not_scannable\"");
    }
  }

  @Test
  void saysWhichTokenItNeeds() throws Exception {
    assertThat(qr("device", "qr", "1")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("--token")
        .contains("KURIR_ADMIN_TOKEN");

    try (TestGateway kurir = TestGateway.start(dir)) {
      Device device = kurir.newDevice("+6281100007003", false);
      err.reset();
      int code =
          qrOf(kurir, device, "not-the-admin-token-at-all")
              .get(Eventually.GUARD.toSeconds(), TimeUnit.SECONDS);
      assertThat(code).isEqualTo(1);
      assertThat(err.toString(StandardCharsets.UTF_8))
          .contains("refused the admin token")
          .contains("--token");
    }
  }

  @Test
  void aDeviceWhoseEngineCannotBeReachedIsNotCalledPairedAndNeitherCommandBlamesTheDriver()
      throws Exception {
    int deadPort;
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 0, java.net.InetAddress.getLoopbackAddress())) {
      deadPort = s.getLocalPort(); // closed: nobody listens there
    }
    String engine = "http://127.0.0.1:" + deadPort;
    try (TestGateway kurir =
        TestGateway.start(
            dir,
            "--public.url=http://127.0.0.1:9",
            "--drivers.waha.url=" + engine,
            "--drivers.waha.api-key=waha-key-0123456789")) {
      Device device = kurir.newDevice("+6281100007004", "waha", Map.of());

      int code = qrOf(kurir, device, TestGateway.ADMIN_TOKEN).get(10, TimeUnit.SECONDS);
      assertThat(code).isEqualTo(1);
      assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("paired");
      assertThat(err.toString(StandardCharsets.UTF_8))
          .contains("the WAHA engine at " + engine + " cannot be reached")
          .contains("drivers.waha.url");

      err.reset();
      int linkCode =
          qr(
              "device",
              "link-code",
              Long.toString(device.id()),
              "--url",
              kurir.gateway().baseUrl(),
              "--token",
              TestGateway.ADMIN_TOKEN);
      assertThat(linkCode).isEqualTo(1);
      assertThat(err.toString(StandardCharsets.UTF_8))
          .contains("the WAHA engine at " + engine + " cannot be reached")
          .doesNotContain("driver is not running");
    }
  }

  @Test
  void withoutAGatewayItSaysSo() {
    int code = qr("device", "qr", "1", "--url", "http://127.0.0.1:9", "--token", "x".repeat(20));
    assertThat(code).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("cannot reach the gateway");
  }

  @Test
  void aDriverWithoutLinkCodesSaysSoThroughTheCommandLine() {
    try (TestGateway kurir = TestGateway.start(dir)) {
      Device device = kurir.newDevice("+6281100007009", false);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int exit =
          AdminCommand.run(
              List.of(
                  "device",
                  "link-code",
                  Long.toString(device.id()),
                  "--url",
                  kurir.gateway().baseUrl(),
                  "--token",
                  TestGateway.ADMIN_TOKEN),
              Map.of(),
              dir.resolve("cli"),
              new PrintStream(out, true, StandardCharsets.UTF_8),
              new PrintStream(err, true, StandardCharsets.UTF_8));
      assertThat(exit).isEqualTo(1);
      assertThat(err.toString(StandardCharsets.UTF_8))
          .contains("409")
          .contains("driver sandbox gives no link code");
    }
  }
}
