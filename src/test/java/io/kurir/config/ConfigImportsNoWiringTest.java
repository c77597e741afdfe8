package io.kurir.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The settings package imports nothing of {@code io.kurir}'s top level (the command line and the
 * gateway's wiring, which import it): the two would be one tangle. The drivers' settings sections
 * come from {@code io.kurir.driver.standard.StandardDrivers}.
 */
class ConfigImportsNoWiringTest {
  private static final Pattern TOP_LEVEL =
      Pattern.compile("^import (static )?io\\.kurir\\.[A-Z].*");

  @Test
  void noSourceOfTheSettingsPackageImportsTheTopLevel() throws IOException {
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(Path.of("src/main/java/io/kurir/config"))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
          if (TOP_LEVEL.matcher(lines.get(i)).matches()
              || lines.get(i).matches(".*\\bio\\.kurir\\.[A-Z]\\w*\\..*")) {
            found.add(file.getFileName() + ":" + (i + 1) + ": " + lines.get(i).strip());
          }
        }
      }
    }
    assertThat(found).isEmpty();
  }
}
