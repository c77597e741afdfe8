package io.kurir.health;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code /health/live} and {@code /health/ready} over real HTTP, without credentials. */
class HealthTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void aRunningGatewayIsLiveAndReadyWithoutCredentials() throws Exception {
    try (TestGateway kurir = TestGateway.start(dir)) {
      Reply live = kurir.get("/health/live");
      assertThat(live.status()).isEqualTo(200);
      assertThat(live.contentType()).startsWith("application/json");
      assertThat(JSON.readTree(live.body()).get("status").asText()).isEqualTo("up");

      Reply ready = kurir.get("/health/ready");
      assertThat(ready.status()).isEqualTo(200);
      JsonNode body = JSON.readTree(ready.body());
      assertThat(body.get("status").asText()).isEqualTo("ready");
      assertThat(body.get("checks").toString())
          .isEqualTo(
              "{\"database\":\"up\",\"migrations\":\"done\",\"writer\":\"running\","
                  + "\"drivers\":\"started\"}");
      // Not a route of any API: an unknown health path answers 404 in Kurir's style.
      assertThat(kurir.get("/health/everything").status()).isEqualTo(404);
    }
  }

  @Test
  void aGatewayWhoseDatabaseIsGoneIsLiveButNotReady() throws Exception {
    try (TestGateway kurir = TestGateway.start(dir)) {
      // The database closes under the running server: its writer stops, its pool answers no more.
      kurir.gateway().database().close();

      assertThat(kurir.get("/health/live").status()).isEqualTo(200);
      Reply ready = kurir.get("/health/ready");
      assertThat(ready.status()).isEqualTo(503);
      JsonNode body = JSON.readTree(ready.body());
      assertThat(body.get("status").asText()).isEqualTo("not_ready");
      assertThat(body.get("checks").get("database").asText()).isEqualTo("down");
      assertThat(body.get("checks").get("migrations").asText()).isEqualTo("unknown");
      assertThat(body.get("checks").get("writer").asText()).isEqualTo("stopped");
    }
  }

  @Test
  void driversNotStartedAreNotReady() throws Exception {
    try (TestGateway kurir = TestGateway.start(dir)) {
      Health health = new Health(kurir.gateway().database(), new io.kurir.driver.Drivers());
      Health.Readiness readiness = health.readiness();
      assertThat(readiness.ready()).isFalse();
      assertThat(readiness.checks()).containsEntry("drivers", "stopped");
      assertThat(readiness.checks()).containsEntry("database", "up");
    }
  }
}
