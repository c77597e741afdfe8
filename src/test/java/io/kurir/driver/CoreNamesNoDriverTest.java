package io.kurir.driver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.standard.StandardDrivers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The core names no driver: a driver's name is written only in its own package, and the demo's
 * account names the sandbox it runs on. Everything else asks the catalog (the console's choice of
 * driver, the Admin API, the command line), so a new driver needs no change outside its package.
 */
class CoreNamesNoDriverTest {
  private static final Path SOURCES = Path.of("src/main/java/io/kurir");
  private static final Path DEMO = SOURCES.resolve("tenant/DemoAccount.java");

  @Test
  void noSourceOutsideADriversPackageWritesItsName() throws IOException {
    List<String> found = new ArrayList<>();
    for (String driver : StandardDrivers.catalog().names()) {
      Path own = SOURCES.resolve("driver").resolve(driver);
      try (Stream<Path> files = Files.walk(SOURCES)) {
        for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
          if (file.startsWith(own) || file.equals(DEMO)) {
            continue;
          }
          List<String> lines = Files.readAllLines(file);
          for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains("\"" + driver + "\"")) {
              found.add(SOURCES.relativize(file) + ":" + (i + 1) + ": " + lines.get(i).strip());
            }
          }
        }
      }
    }
    assertThat(found).as("driver names written outside their drivers").isEmpty();
  }

  @Test
  void everyStandardDriverHasItsOwnPackage() {
    // Otherwise the test above would look for a name where no source could write it.
    for (String driver : StandardDrivers.catalog().names()) {
      assertThat(SOURCES.resolve("driver").resolve(driver)).isDirectory();
    }
  }
}
