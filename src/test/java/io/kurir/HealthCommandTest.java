package io.kurir;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.testing.TestGateway;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kurir health}, the container image's and compose's health check, against a real running
 * gateway: it finds the gateway by the same settings (here {@code KURIR_SERVER_PORT}, as in the
 * container), exits 0 when it is ready and 1 when nothing answers, and speaks https to a gateway
 * that serves it.
 */
class HealthCommandTest {
  @TempDir Path dir;
  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int health(Map<String, String> env, String... flags) {
    out.reset();
    err.reset();
    List<String> args = new java.util.ArrayList<>(List.of("health"));
    args.addAll(List.of(flags));
    return Kurir.run(
        "kurir",
        args,
        env,
        dir,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String stdout() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String stderr() {
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aReadyGatewayIsHealthyAndAStoppedOneIsNot() {
    int port;
    try (TestGateway kurir = TestGateway.start(dir)) {
      port = URI.create(kurir.url("/")).getPort();
      Map<String, String> env = Map.of("KURIR_SERVER_PORT", String.valueOf(port));

      assertThat(health(env)).as(stderr()).isZero();
      assertThat(stdout())
          .startsWith("http://127.0.0.1:" + port + "/health/ready: ")
          .contains("\"status\":\"ready\"");

      assertThat(health(env, "--live")).as(stderr()).isZero();
      assertThat(stdout()).startsWith("http://127.0.0.1:" + port + "/health/live: ");

      assertThat(health(Map.of(), "--port=" + port)).as("settings flags too").isZero();
    }

    assertThat(health(Map.of("KURIR_SERVER_PORT", String.valueOf(port)))).isEqualTo(1);
    assertThat(stderr())
        .startsWith("kurir: no gateway answers at http://127.0.0.1:" + port + "/health/ready")
        .contains("is it running, with the same server.port?");
    assertThat(stdout()).isEmpty();
  }

  @Test
  void aGatewayOnHttpsIsAskedOverHttps() throws Exception {
    Path keystore = dir.resolve("kurir.p12");
    Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    Process p =
        new ProcessBuilder(
                keytool.toString(),
                "-genkeypair",
                "-alias",
                "kurir",
                "-keyalg",
                "EC",
                "-dname",
                "CN=kurir.example.com",
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                keystore.toString(),
                "-storepass",
                "store-secret")
            .redirectErrorStream(true)
            .start();
    String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(said).isZero();
    String[] tls = {
      "--server.tls.keystore=" + keystore, "--server.tls.keystore-password=store-secret"
    };
    try (TestGateway kurir = TestGateway.start(dir, tls)) {
      int port = URI.create(kurir.url("/")).getPort();
      String[] flags = {tls[0], tls[1], "--server.port=" + port};

      assertThat(health(Map.of(), flags)).as(stderr()).isZero();
      assertThat(stdout()).startsWith("https://127.0.0.1:" + port + "/health/ready: ");
    }
  }
}
