package io.kurir.clients;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.MobileCs;
import io.kurir.tenant.Partner;
import io.kurir.tenant.Tenants;
import io.kurir.testing.TestGateway;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The spreadsheet scripts in {@code clients/apps-script/} under Node's test runner, against this
 * gateway: the Node tests load each script with fakes of the Apps Script services that make real
 * HTTP calls, and check that the sandbox phone received the filled-in template.
 */
class AppsScriptTest {
  @TempDir Path dir;

  @Test
  void theSpreadsheetScriptsSendThroughARunningGateway() throws Exception {
    String node = node();
    try (TestGateway kurir = TestGateway.start(dir)) {
      Tenants tenants = kurir.gateway().tenants();
      Partner partner = tenants.createPartner("Sekolah", "");
      License license =
          tenants.createLicense(partner.id(), "Sekolah", "", LocalDate.of(2099, 1, 1), List.of());
      Device device = tenants.createDevice(license.id(), "+6281100008501", "sandbox");
      kurir.sandbox().pair(device.id(), device.number());
      MobileCs.Entry cs =
          new MobileCs(
                  kurir.gateway().database(),
                  new io.kurir.store.IdGenerator(Clock.systemUTC(), 5),
                  Clock.systemUTC(),
                  tenants)
              .add(license.id(), device.id(), "CS Sari", "player-script", "handset-script");

      TestGateway.Reply generated =
          kurir.get(
              "/admin/devices/"
                  + device.id()
                  // The CRM id is stored as its hash: the caller gives it, as shown at creation.
                  + "/script?script=multi-type&type=crm&crm_device_id="
                  + device.crmDeviceId()
                  + "&kolom_no_wa=3&template="
                  + java.net.URLEncoder.encode(
                      "Halo [kolom2], terima kasih ([kolom1]).", StandardCharsets.UTF_8)
                  // The test's gateway is on loopback; a real one is given by public.url.
                  + "&base_url="
                  + java.net.URLEncoder.encode(kurir.gateway().baseUrl(), StandardCharsets.UTF_8),
              "Authorization",
              "Bearer " + TestGateway.ADMIN_TOKEN);
      assertThat(generated.status()).as(generated.body()).isEqualTo(200);
      Path script = dir.resolve("generated-multi-type.gs");
      Files.writeString(script, generated.body());

      Path output = dir.resolve("node-test.log");
      ProcessBuilder pb =
          new ProcessBuilder(node, "--test", "clients/apps-script/test/")
              .redirectErrorStream(true)
              .redirectOutput(output.toFile());
      Map<String, String> env = pb.environment();
      env.put("KURIR_URL", kurir.gateway().baseUrl());
      env.put("KURIR_ADMIN_TOKEN", TestGateway.ADMIN_TOKEN);
      env.put("KURIR_ECO_KEY", device.ecoKey());
      env.put("KURIR_PUSH_KEY", license.pushKey());
      env.put("KURIR_APP_ID", kurir.settings().pushAppId());
      env.put("KURIR_CS_PLAYER_ID", cs.playerId());
      env.put("KURIR_CS_HANDSET_ID", cs.handsetId());
      env.put("KURIR_CRM_DEVICE_ID", device.crmDeviceId());
      env.put("KURIR_GENERATED_MULTI_TYPE", script.toString());
      Process p = pb.start();
      boolean done = p.waitFor(120, TimeUnit.SECONDS);
      String log = Files.readString(output, StandardCharsets.UTF_8);
      if (!done) {
        p.destroyForcibly();
      }
      assertThat(done).as("node --test finished in time:\n" + log).isTrue();
      assertThat(p.exitValue()).as("node --test passed:\n" + log).isZero();
      assertThat(log)
          .contains("# fail 0")
          .doesNotContain("not ok")
          .containsPattern("# pass [1-9]\\d");
    }
  }

  /**
   * Node from {@code KURIR_NODE} (the launcher sets it) or the {@code PATH}. Missing Node fails the
   * test with the reason: the scripts are part of what {@code ./kurir test} checks.
   */
  static String node() {
    Optional<String> configured = Optional.ofNullable(System.getenv("KURIR_NODE"));
    if (configured.isPresent() && new File(configured.get()).canExecute()) {
      return configured.get();
    }
    for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      File candidate = new File(d, "node");
      if (candidate.canExecute()) {
        return candidate.getPath();
      }
    }
    throw new AssertionError(
        "Node.js 18 or newer is needed to test the spreadsheet scripts (clients/apps-script):"
            + " ./kurir test installs it with apt-get when it can; otherwise install it and run"
            + " again");
  }
}
