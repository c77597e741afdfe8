package io.kurir;

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
 * The layers of docs/architecture.md, held by the code: the core knows no HTTP and no wiring, the
 * dialects build one send command and never name a driver, and the pipeline stays in parts. The
 * drivers' side of the picture is held by {@code driver/DriverPointsOneWayTest} and {@code
 * driver/CoreNamesNoDriverTest}, the stores' by {@code store/StoresOwnTheirTablesTest}.
 */
class LayersTest {
  private static final Path SOURCES = Path.of("src/main/java/io/kurir");

  /** The core's packages: rules and states, no HTTP (DESIGN.md's picture). */
  private static final List<String> CORE =
      List.of(
          "core",
          "content",
          "message",
          "device",
          "schedule",
          "webhook",
          "bot",
          "report",
          "tenant",
          "media",
          "phone",
          "contact",
          "contactbook",
          "campaign",
          "store",
          "time");

  /** The largest a file of the pipeline may grow (issue 28: split by job before it gets there). */
  private static final int MESSAGE_FILE_LINES = 500;

  @Test
  void theCoreImportsNeitherTheHttpLayerNorTheWiring() throws IOException {
    // The wiring is the top-level package (Gateway, Core, the command line): a class there starts
    // with a capital letter after "io.kurir.".
    Pattern upward = Pattern.compile("^import io\\.kurir\\.(api\\.|[A-Z])");
    List<String> found = new ArrayList<>();
    for (String pkg : CORE) {
      for (Path file : javaFiles(SOURCES.resolve(pkg))) {
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
          if (upward.matcher(lines.get(i)).find()) {
            found.add(SOURCES.relativize(file) + ":" + (i + 1) + ": " + lines.get(i));
          }
        }
      }
    }
    assertThat(found).as("core classes that import the HTTP layer or the wiring").isEmpty();
  }

  @Test
  void theDialectsNameNoDriverAndBuildNoSendRequest() throws IOException {
    Pattern driverImplementation =
        Pattern.compile("^import io\\.kurir\\.driver\\.(sandbox|cloud|waha|gowa)\\.");
    List<String> found = new ArrayList<>();
    for (Path file : javaFiles(SOURCES.resolve("api"))) {
      List<String> lines = Files.readAllLines(file);
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        if (driverImplementation.matcher(line).find() || line.contains("new SendRequest(")) {
          found.add(SOURCES.relativize(file) + ":" + (i + 1) + ": " + line.strip());
        }
      }
    }
    assertThat(found)
        .as("api/ names a driver, or builds a SendRequest instead of a SendCommand")
        .isEmpty();
  }

  @Test
  void noFileOfThePipelineIsOverFiveHundredLines() throws IOException {
    List<String> found = new ArrayList<>();
    for (Path file : javaFiles(SOURCES.resolve("message"))) {
      long lines = Files.readAllLines(file).size();
      if (lines > MESSAGE_FILE_LINES) {
        found.add(SOURCES.relativize(file) + ": " + lines + " lines");
      }
    }
    assertThat(found).as("message/ files over " + MESSAGE_FILE_LINES + " lines").isEmpty();
  }

  @Test
  void theRulesLookAtTheSources() throws IOException {
    // A rule over no files would pass whatever the code holds.
    for (String pkg : CORE) {
      assertThat(javaFiles(SOURCES.resolve(pkg))).as(pkg).isNotEmpty();
    }
    assertThat(javaFiles(SOURCES.resolve("api"))).hasSizeGreaterThan(20);
  }

  private static List<Path> javaFiles(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(f -> f.toString().endsWith(".java")).sorted().toList();
    }
  }
}
