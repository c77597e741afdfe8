package io.kurir;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The benchmarks under {@code bench/src} compile against the gateway as it is now. {@code ./kurir
 * bench} compiles them only when it runs, so a changed record or constructor in the gateway would
 * otherwise break the benchmark unnoticed until the next performance session (it did once: a
 * campaign draft's new field).
 */
class BenchCompilesTest {
  @TempDir Path out;

  @Test
  void theBenchmarkSourcesCompile() throws Exception {
    List<String> sources = new ArrayList<>();
    try (Stream<Path> files = Files.walk(Path.of("bench", "src"))) {
      files.filter(p -> p.toString().endsWith(".java")).forEach(p -> sources.add(p.toString()));
    }
    assertThat(sources).as("the benchmark's sources").isNotEmpty();
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertThat(javac).as("a JDK's compiler (the build runs on a JDK)").isNotNull();
    List<String> args =
        new ArrayList<>(
            List.of(
                "--release",
                "21",
                "-nowarn",
                "-proc:none",
                "-d",
                out.toString(),
                "-cp",
                System.getProperty("java.class.path")));
    args.addAll(sources);
    ByteArrayOutputStream errors = new ByteArrayOutputStream();
    int status = javac.run(null, errors, errors, args.toArray(String[]::new));
    assertThat(status).as("javac of bench/src:%n%s", errors.toString(UTF_8)).isZero();
  }
}
