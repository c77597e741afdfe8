package io.kurir;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every log line the README quotes ("the log says `…`") is one the code writes: an operator greps
 * the log for what the README told them to expect (issue 25, item 13a: the README promised {@code
 * resumed N pending messages}, the log says {@code resumed the queues of N device(s)}).
 */
class ReadmeLogLinesTest {
  /** "the log says `…`", across a line break; {@code N} in the quote stands for a number. */
  private static final Pattern QUOTED_LOG_LINE =
      Pattern.compile("log\\s+(?:says|prints|writes)\\s+`([^`]+)`");

  @Test
  void eachLogLineTheReadmeQuotesIsALogMessageOfTheCode() throws IOException {
    String readme = Files.readString(Path.of("README.md"));
    List<String> quoted = new ArrayList<>();
    Matcher m = QUOTED_LOG_LINE.matcher(readme);
    while (m.find()) {
      quoted.add(m.group(1));
    }
    assertThat(quoted).as("the README quotes the restart line").isNotEmpty();

    String code = mainSources();
    for (String line : quoted) {
      // The logger's template: each N the README writes is a {} placeholder.
      String template = line.replaceAll("\\bN\\b", "{}");
      assertThat(code).as("a log call writing `%s`", line).contains("\"" + template + "\"");
    }
  }

  private static String mainSources() throws IOException {
    StringBuilder all = new StringBuilder();
    try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
      files
          .filter(f -> f.toString().endsWith(".java"))
          .forEach(
              f -> {
                try {
                  all.append(Files.readString(f)).append('\n');
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    }
    return all.toString();
  }
}
