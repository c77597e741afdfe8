package io.kurir.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The driver interface points one way: the core (the API families, tenants, messages, device
 * sessions) uses {@code io.kurir.driver}, never the other way round. A driver sees its own small
 * types (a device reference, its session state, routes as data, a narrow device lookup), so a new
 * driver compiles against the SPI alone, and the HTTP layer or the tenant rules can change without
 * touching a driver. Sources are scanned as {@link CoreNamesNoDriverTest} scans them, for imports
 * and for names written out in full ({@code io.kurir.api.RouteTable} in a signature).
 */
class DriverPointsOneWayTest {
  private static final Path SOURCES = Path.of("src/main/java/io/kurir");
  private static final Path DRIVER = SOURCES.resolve("driver");

  /** The core's packages a driver may not name; {@code device} would close a cycle. */
  private static final List<String> CORE = List.of("api", "tenant", "message", "device");

  private static final Pattern KURIR_NAME = Pattern.compile("\\bio\\.kurir\\.([a-z]+)\\.");
  private static final Pattern IMPLEMENTATION =
      Pattern.compile("\\bio\\.kurir\\.driver\\.([a-z]+)\\.");

  @Test
  void noDriverSourceNamesTheApiTheTenantsTheMessagesOrTheDeviceSessions() throws IOException {
    List<String> found = new ArrayList<>();
    for (Path file : javaFiles(DRIVER)) {
      List<String> lines = Files.readAllLines(file);
      for (int i = 0; i < lines.size(); i++) {
        Matcher m = KURIR_NAME.matcher(lines.get(i));
        while (m.find()) {
          if (CORE.contains(m.group(1))) {
            found.add(SOURCES.relativize(file) + ":" + (i + 1) + ": " + lines.get(i).strip());
          }
        }
      }
    }
    assertThat(found).as("driver sources naming the core").isEmpty();
  }

  @Test
  void theInterfacesPackageNamesNoneOfItsImplementations() throws IOException {
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.list(DRIVER)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
          if (IMPLEMENTATION.matcher(lines.get(i)).find()) {
            found.add(SOURCES.relativize(file) + ":" + (i + 1) + ": " + lines.get(i).strip());
          }
        }
      }
    }
    assertThat(found).as("the SPI naming a driver's package").isEmpty();
  }

  @Test
  void theScanSeesTheDriverSources() throws IOException {
    // Otherwise the tests above would pass on an empty folder (a moved source tree).
    assertThat(javaFiles(DRIVER)).contains(DRIVER.resolve("Driver.java"));
    assertThat(javaFiles(DRIVER).stream().filter(f -> !f.getParent().equals(DRIVER))).isNotEmpty();
  }

  private static List<Path> javaFiles(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(f -> f.toString().endsWith(".java")).toList();
    }
  }
}
