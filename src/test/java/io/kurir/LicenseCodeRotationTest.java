package io.kurir;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.tenant.Device;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestDatabases;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A license code is stored as its hash, so a lost one cannot be read back: it is replaced, by the
 * Admin API ({@code POST /admin/licenses/{id}/rotate-code}) or {@code ./kurir admin license
 * rotate-code}, each answering the new code once. The old code stops working at once.
 */
class LicenseCodeRotationTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] AUTH = {"Authorization", "Bearer " + TestGateway.ADMIN_TOKEN};

  @TempDir Path dir;
  private TestGateway kurir;

  @BeforeEach
  void start() {
    kurir = TestGateway.start(dir);
  }

  @AfterEach
  void stop() {
    kurir.close();
  }

  /** What the Account API's license check says of {@code code}: "active", or "failed" (unknown). */
  private String expiry(String code) throws Exception {
    return JSON.readTree(kurir.get("/v3.0/license/expired/" + code).body()).get("status").asText();
  }

  @Test
  void theAdminApiAnswersTheNewCodeOnceAndTheOldOneStopsWorking() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), false);
    String old = kurir.licenseOf(device).code();
    assertThat(expiry(old)).isEqualTo("active");

    Reply r =
        kurir.post(
            "/admin/licenses/" + device.licenseId() + "/rotate-code", "", null, AUTH[0], AUTH[1]);

    assertThat(r.status()).as(r.body()).isEqualTo(200);
    String code = JSON.readTree(r.body()).get("code").asText();
    assertThat(code).isNotEqualTo(old).hasSizeGreaterThanOrEqualTo(24);
    assertThat(expiry(old)).isEqualTo("failed");
    assertThat(expiry(code)).isEqualTo("active");
    // Not readable again: the list leaves it out.
    assertThat(kurir.get("/admin/licenses", AUTH).body()).doesNotContain(code);
    assertThat(
            kurir.post("/admin/licenses/999999/rotate-code", "", null, AUTH[0], AUTH[1]).status())
        .isEqualTo(404);
  }

  @Test
  void theCommandLinePrintsTheNewCodeOnceAndTheOldOneStopsWorking() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), false);
    String old = kurir.licenseOf(device).code();

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    List<String> args =
        new ArrayList<>(
            List.of(
                "license",
                "rotate-code",
                Long.toString(device.licenseId()),
                "--data.dir=" + dir.resolve("data")));
    args.addAll(TestDatabases.flags(dir.resolve("data").resolve("kurir.db")));
    int status =
        AdminCommand.run(
            args,
            Map.of(),
            dir,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));

    assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
    JsonNode license = JSON.readTree(out.toString(StandardCharsets.UTF_8));
    assertThat(license.get("id").asText()).isEqualTo(Long.toString(device.licenseId()));
    String code = license.get("code").asText();
    assertThat(code).isNotEqualTo(old);
    assertThat(expiry(old)).isEqualTo("failed");
    assertThat(expiry(code)).isEqualTo("active");
  }
}
