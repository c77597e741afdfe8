package io.kurir;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import io.kurir.testing.LogCapture;
import io.kurir.testing.TestDatabases;
import io.kurir.testing.TestGateway;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * The tests' gateways run on the fixed test secrets key: none makes a key file or logs the WARN
 * that asks an operator to move it, which tests that allow no WARN line would trip over. The tests
 * of a made key (SecretsAtRestTest) start without it on purpose.
 */
@Isolated("reads the io.kurir log (LogCapture), which every gateway in this JVM writes to")
class TestGatewaySecretsKeyTest {
  @TempDir Path dir;

  @Test
  void aTestGatewayMakesNoKeyFileAndLogsNoWarning() {
    try (LogCapture logs = LogCapture.of();
        TestGateway kurir = TestGateway.start(dir)) {
      kurir.newDevice("+6281100007606", true);

      assertThat(dir.resolve("data").resolve("secret.key")).doesNotExist();
      assertThat(logs.atLeast(Level.WARN)).isEmpty();
      assertThat(kurir.gateway().database().secrets().keyId())
          .isEqualTo(
              io.kurir.store.SecretBox.of(
                      java.util.Base64.getDecoder().decode(TestDatabases.TEST_SECRETS_KEY))
                  .keyId());
    }
  }
}
