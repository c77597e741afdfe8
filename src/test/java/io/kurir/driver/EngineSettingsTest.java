package io.kurir.driver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.gowa.GowaDriverFactory;
import io.kurir.driver.waha.WahaDriverFactory;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The settings the engine drivers share are defined once ({@link EngineSettings}) and each driver's
 * section lists them with the same defaults, but for what is its own: the timeout (GOWA's is above
 * its 45 s request deadline) and GOWA's brief "no".
 */
class EngineSettingsTest {

  private static Map<String, DriverSetting> section(DriverFactory factory) {
    return factory.settings().stream()
        .collect(Collectors.toMap(DriverSetting::key, Function.identity()));
  }

  @Test
  void bothEngineDriversListTheSharedSettingsWithTheSameDefaults() {
    Map<String, DriverSetting> waha = section(new WahaDriverFactory());
    Map<String, DriverSetting> gowa = section(new GowaDriverFactory());
    for (DriverSetting shared :
        List.of(
            EngineSettings.url(),
            EngineSettings.healthEvery(),
            EngineSettings.numberCheckFor(),
            EngineSettings.numberChecksPerMinute())) {
      assertThat(waha.get(shared.key())).as("waha " + shared.key()).isEqualTo(shared);
      assertThat(gowa.get(shared.key())).as("gowa " + shared.key()).isEqualTo(shared);
    }
    assertThat(waha.get(EngineSettings.TIMEOUT)).isEqualTo(EngineSettings.timeout("30s"));
    assertThat(gowa.get(EngineSettings.TIMEOUT)).isEqualTo(EngineSettings.timeout("60s"));
    for (Map<String, DriverSetting> section : List.of(waha, gowa)) {
      assertThat(section.get("pacing.min-gap").serveDefault()).isEqualTo("1000ms");
      assertThat(section.get("pacing.jitter").serveDefault()).isEqualTo("2000ms");
    }
    assertThat(gowa.get("number-check-no-for").serveDefault()).isEqualTo("1h");
    assertThat(waha).doesNotContainKey("number-check-no-for");
  }
}
