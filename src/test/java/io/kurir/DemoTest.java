package io.kurir;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.config.SettingsLoader;
import io.kurir.config.SettingsLoader.Profile;
import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.tenant.DemoAccount;
import io.kurir.tenant.Device;
import io.kurir.tenant.Tenants;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/** {@code ./kurir demo}: the printed curl commands work as printed, and seeding is idempotent. */
@Isolated("reads the io.kurir log (LogCapture), which every gateway in this JVM writes to")
class DemoTest {
  @TempDir Path dir;

  private Gateway startDemo() {
    return Gateway.start(
        SettingsLoader.load(Profile.DEMO, List.of("--port=0"), Map.of(), dir), Clock.systemUTC());
  }

  @Test
  void theCurlCommandsPrintedByTheDemoAnswerAsPromised() throws Exception {
    try (Gateway demo = startDemo()) {
      String banner = Kurir.demoBanner(demo);
      assertThat(banner).contains(demo.baseUrl(), DemoAccount.KEY);
      assertThat(banner).contains("console       " + demo.baseUrl() + "/console ");
      assertThat(run("curl -s " + demo.baseUrl() + "/console/sign-in")).contains("Admin token");

      List<String> commands = curlCommands(banner);
      assertThat(commands).hasSizeGreaterThanOrEqualTo(3);
      assertThat(run(commands.get(0))).isEqualTo("success");
      String id = run(commands.get(1));
      assertThat(id).matches("\\d+");

      String phone = "+6281234567890";
      io.kurir.testing.Eventually.until(
          "queued message delivered", () -> demo.sandbox().inbox(phone).size() == 2);
      assertThat(demo.sandbox().inbox(phone))
          .extracting(InboxEntry::text)
          .containsExactly("Hello from Kurir", "Queued\nsecond line");
      assertThat(run(commands.get(2))).contains("\"text\":\"Hello from Kurir\"");
      assertThat(run(commands.get(3).replace("<id>", id))).startsWith("{\"status\":\"success\"");
      assertThat(banner).as("the second device's QR code").contains("█");
    }
  }

  /**
   * The demo makes its own secrets key beside its database: said at INFO (a demo is not
   * production), where {@code serve} warns, since a key beside the database protects little.
   */
  @Test
  void theDemoMakesItsSecretsKeyWithoutAWarningWhereServeWarns() {
    try (io.kurir.testing.LogCapture logs = io.kurir.testing.LogCapture.of();
        Gateway demo = startDemo()) {
      assertThat(logs.lines(l -> l.message().startsWith("created the secrets key")))
          .singleElement()
          .satisfies(l -> assertThat(l.level()).isEqualTo(ch.qos.logback.classic.Level.INFO));
      assertThat(logs.atLeast(ch.qos.logback.classic.Level.WARN)).isEmpty();
      assertThat(demo.demoDevice()).isPresent();
    }
    try (io.kurir.testing.LogCapture logs = io.kurir.testing.LogCapture.of();
        Gateway serve =
            Gateway.start(
                SettingsLoader.load(
                    Profile.SERVE,
                    List.of(
                        "--server.port=0",
                        "--server.host=127.0.0.1",
                        "--data.dir=" + dir.resolve("serve")),
                    Map.of(),
                    dir),
                Clock.systemUTC())) {
      assertThat(logs.lines(l -> l.message().startsWith("created the secrets key")))
          .singleElement()
          .satisfies(l -> assertThat(l.level()).isEqualTo(ch.qos.logback.classic.Level.WARN));
    }
  }

  @Test
  void seedingTwiceKeepsOneDemoAccountThatIsPairedAtStart() {
    try (Gateway first = startDemo()) {
      assertThat(first.demoDevice()).isPresent();
      assertThat(first.sandbox().session(first.demoDevice().get().id())).isPresent();
    }
    try (Gateway second = startDemo()) {
      assertThat(second.tenants().partners()).hasSize(1);
      assertThat(second.tenants().licenses()).hasSize(1);
      assertThat(second.tenants().devices())
          .extracting(d -> d.ecoKey())
          .containsExactlyInAnyOrder(DemoAccount.KEY, DemoAccount.SECOND_KEY);
      assertThat(second.sandbox().session(second.demoDevice().get().id())).isPresent();
    }
  }

  @Test
  void aDemoWhoseKeysWereRotatedStartsAgainAndPrintsTheKeysThatWorkNow() throws Exception {
    String rotatedKey;
    String rotatedSecret;
    try (Gateway first = startDemo()) {
      Device demoDevice = DemoAccount.first(first.tenants());
      rotatedKey = first.tenants().rotate(demoDevice.id(), Tenants.Credential.KEY).ecoKey();
      first.tenants().rotate(DemoAccount.second(first.tenants()).id(), Tenants.Credential.KEY);
      rotatedSecret =
          first
              .tenants()
              .rotatePartnerSecret(DemoAccount.partner(first.tenants()).id())
              .basicSecret();
    }
    try (Gateway again = startDemo()) {
      assertThat(again.tenants().devices()).hasSize(2);
      String banner = Kurir.demoBanner(again);
      // The partner's secret is stored as its hash: shown once, when it was rotated, not again.
      assertThat(banner)
          .contains("demo key      " + rotatedKey, "(rotated: shown when it was rotated)")
          .doesNotContain(
              DemoAccount.KEY, DemoAccount.SECOND_KEY, DemoAccount.PARTNER_SECRET, rotatedSecret);
      assertThat(run(curlCommands(banner).get(0))).isEqualTo("success");
    }
  }

  /**
   * Where the banner shows how to register a webhook, it shows the secret that signs its calls (as
   * it is now, after a rotation too) and a command that prints the device's webhooks with it.
   */
  @Test
  void theBannerShowsTheWebhookSigningSecretWhereItRegistersAWebhook() throws Exception {
    try (Gateway demo = startDemo()) {
      Device second = DemoAccount.second(demo.tenants());
      String secret =
          demo.tenants()
              .rotateWebhookSecret(second.licenseId(), java.time.Duration.ZERO)
              .webhookSecret();
      String banner = Kurir.demoBanner(demo);
      assertThat(banner).contains("webhook secret " + secret);
      assertThat(banner.indexOf("webhook secret")).isGreaterThan(banner.indexOf("webhook_status"));
      String show =
          curlCommands(banner).stream()
              .filter(c -> c.contains("/admin/devices/" + second.id()))
              .findFirst()
              .orElseThrow();
      assertThat(run(show)).contains("\"secret\":\"" + secret + "\"");
    }
  }

  /** Each curl command of the banner, with its continuation lines joined. */
  private static List<String> curlCommands(String banner) {
    String joined = banner.replace("\\\n", " ");
    Matcher m = Pattern.compile("(?m)^\\s*(curl .*)$").matcher(joined);
    List<String> out = new java.util.ArrayList<>();
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  private static String run(String command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true).start();
    assertThat(p.waitFor(20, TimeUnit.SECONDS)).as("curl finished").isTrue();
    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
  }

  @Test
  void theDemoIgnoresAProductionKurirYmlInTheWorkingFolder() throws IOException {
    java.nio.file.Files.writeString(
        dir.resolve("kurir.yml"), "data:\n  dir: production-data\nsandbox:\n  api: false\n");
    var settings = SettingsLoader.load(Profile.DEMO, List.of("--port=0"), Map.of(), dir);
    assertThat(settings.dataDir()).isEqualTo(dir.resolve("data/demo"));
    assertThat(settings.driver("sandbox").bool("api")).isTrue();
  }
}
