package io.kurir.clients;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.ApiScope;
import io.kurir.tenant.Device;
import io.kurir.testing.TestGateway;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A public WhatsApp Cloud API client library, {@code @kapso/whatsapp-cloud-api} from npm (written
 * for Meta's Graph API; its base URL can be set), run unchanged against Kurir's {@code /graph} door
 * under Node's test runner: {@code clients/cloud-api-sdk/}. Its dependencies are installed from its
 * lockfile by {@code ./kurir test} ({@code npm ci}); a checkout without them fails here with the
 * reason.
 */
class GraphSdkTest {
  private static final Path SDK = Path.of("clients/cloud-api-sdk");

  @TempDir Path dir;

  @Test
  void aCloudApiClientLibrarySendsThroughKurirWithOnlyItsBaseUrlAndTokenChanged() throws Exception {
    String node = AppsScriptTest.node();
    assertThat(SDK.resolve("node_modules/@kapso/whatsapp-cloud-api/package.json"))
        .as(
            "the SDK's dependencies are installed: ./kurir test runs npm ci in "
                + SDK
                + " (or run it there yourself)")
        .exists();
    try (TestGateway kurir = TestGateway.start(dir)) {
      Device device = kurir.newDevice("+6281100002941", true);
      Device other = kurir.newDevice("+6281100002942", true);
      String key =
          kurir
              .gateway()
              .tenants()
              .apiKeys()
              .create(device.licenseId(), "sdk", EnumSet.of(ApiScope.SEND))
              .key()
              .orElseThrow();

      // The customer wrote first: the read mark names that message by the network's id.
      kurir.sandbox().injectIncoming(device.id(), "+6281234500088", "halo", "SBX-SDK-IN-1");
      io.kurir.testing.Eventually.until("received", () -> kurir.storedIncoming(device.id()) == 1);
      Path output = dir.resolve("node-test.log");
      ProcessBuilder pb =
          new ProcessBuilder(node, "--test", "test/")
              .directory(SDK.toFile())
              .redirectErrorStream(true)
              .redirectOutput(output.toFile());
      Map<String, String> env = pb.environment();
      env.put("KURIR_URL", kurir.gateway().baseUrl());
      env.put("KURIR_ADMIN_TOKEN", TestGateway.ADMIN_TOKEN);
      env.put("KURIR_GRAPH_TOKEN", key);
      env.put("KURIR_PHONE_NUMBER_ID", Long.toString(device.id()));
      env.put("KURIR_OTHER_PHONE_NUMBER_ID", Long.toString(other.id()));
      env.put("KURIR_TO", "6281234500088");
      env.put("KURIR_RECEIVED_ID", "SBX-SDK-IN-1");
      Process p = pb.start();
      boolean done = p.waitFor(120, TimeUnit.SECONDS);
      String log = Files.readString(output, StandardCharsets.UTF_8);
      if (!done) {
        p.destroyForcibly();
      }
      assertThat(done).as("node --test finished in time:\n" + log).isTrue();
      assertThat(p.exitValue()).as("node --test passed:\n" + log).isZero();
      assertThat(log).contains("# fail 0").doesNotContain("not ok").contains("# pass 6");
    }
  }
}
