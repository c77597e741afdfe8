package io.kurir.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

/**
 * {@code java -jar kurir.jar} on a Java older than 21 says which Java Kurir needs instead of dying
 * with {@code UnsupportedClassVersionError}; on a new enough Java the launcher hands over to the
 * gateway. Both run as real processes, on a jar made here from the compiled classes with the {@code
 * Main-Class} that {@code pom.xml} gives both jars.
 */
class LauncherTest {
  @TempDir Path dir;

  @Test
  void bothJarsStartTheLauncher() throws Exception {
    assertThat(mainClassesInThePom())
        .as("the everyday jar and the release jar")
        .containsExactly(Launcher.class.getName(), Launcher.class.getName());
  }

  @Test
  void anOldJavaIsToldWhichJavaKurirNeeds() throws Exception {
    Path oldJava = oldJava();
    int feature = feature(oldJava);

    Run run = run(oldJava, "-jar", jar().toString(), "serve");

    assertThat(run.exitCode).isEqualTo(1);
    assertThat(run.stderr.lines().findFirst())
        .hasValue("Kurir needs Java 21 or newer; this is Java " + feature);
    assertThat(run.stderr)
        .contains("install Java 21 or newer")
        .doesNotContain("UnsupportedClassVersionError")
        .doesNotContain("Exception")
        .doesNotContain("\tat ");
    assertThat(run.stdout).isEmpty();
  }

  @Test
  void aNewEnoughJavaRunsTheGateway() throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");

    Run run = run(java, "-jar", jar().toString(), "--version");

    assertThat(run.stderr).isEmpty();
    assertThat(run.exitCode).isZero();
    assertThat(run.stdout).startsWith("kurir ");

    Run wrong = run(java, "-jar", jar().toString(), "serve", "--prot=1");
    assertThat(wrong.exitCode).as("the gateway's own exit status").isEqualTo(2);
    assertThat(wrong.stderr).contains("unknown option '--prot'");
  }

  @Test
  void versionsAreReadAsJavaWritesThem() {
    assertThat(Launcher.problem("1.8")).isEqualTo("Kurir needs Java 21 or newer; this is Java 8");
    assertThat(Launcher.problem("11")).isEqualTo("Kurir needs Java 21 or newer; this is Java 11");
    assertThat(Launcher.problem("17")).isEqualTo("Kurir needs Java 21 or newer; this is Java 17");
    assertThat(Launcher.problem("21")).isNull();
    assertThat(Launcher.problem("25")).isNull();
    assertThat(Launcher.problem("nonsense")).as("left to the gateway's classes").isNull();
    assertThat(Launcher.problem(null)).isNull();
  }

  private record Run(int exitCode, String stdout, String stderr) {}

  private Run run(Path java, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(java.toString(), "-Xmx64m"));
    command.addAll(List.of(args));
    ProcessBuilder b =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectOutput(dir.resolve("out.txt").toFile())
            .redirectError(dir.resolve("err.txt").toFile());
    b.environment().keySet().removeIf(k -> k.startsWith("KURIR_") || k.startsWith("JAVA_TOOL"));
    Process p = b.start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("did not stop: " + command);
    }
    return new Run(
        p.exitValue(),
        Files.readString(dir.resolve("out.txt")),
        Files.readString(dir.resolve("err.txt")));
  }

  /**
   * A jar of the compiled classes, as {@code target/run/kurir.jar} is: the pom's {@code Main-Class}
   * and the libraries on its {@code Class-Path}.
   */
  private Path jar() throws Exception {
    Path jar = dir.resolve("kurir.jar");
    if (Files.exists(jar)) {
      return jar;
    }
    Path classes = Path.of("target", "classes").toAbsolutePath();
    List<String> libraries = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      Path p = Path.of(entry).toAbsolutePath();
      if (entry.endsWith(".jar") && !p.startsWith(Path.of("target").toAbsolutePath())) {
        libraries.add(p.toUri().toString());
      }
    }
    Manifest manifest = new Manifest();
    Attributes main = manifest.getMainAttributes();
    main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
    main.put(Attributes.Name.MAIN_CLASS, mainClassesInThePom().getFirst());
    main.put(Attributes.Name.CLASS_PATH, String.join(" ", libraries));
    main.putValue("Enable-Native-Access", "ALL-UNNAMED");
    try (OutputStream file = Files.newOutputStream(jar);
        JarOutputStream out = new JarOutputStream(file, manifest);
        Stream<Path> all = Files.walk(classes)) {
      for (Path p : all.filter(Files::isRegularFile).toList()) {
        out.putNextEntry(new JarEntry(classes.relativize(p).toString().replace('\\', '/')));
        Files.copy(p, out);
        out.closeEntry();
      }
    }
    return jar;
  }

  /** The {@code mainClass} of the jar plugin and of the release profile's shade plugin. */
  private static List<String> mainClassesInThePom() throws Exception {
    Document pom =
        DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(Path.of("pom.xml").toFile());
    NodeList found = pom.getElementsByTagName("mainClass");
    List<String> names = new ArrayList<>();
    for (int i = 0; i < found.getLength(); i++) {
      names.add(found.item(i).getTextContent().strip());
    }
    return names;
  }

  /**
   * A Java older than 21 on this machine: {@code KURIR_TEST_OLD_JAVA} (a java binary), else the
   * newest older one under {@code /usr/lib/jvm}. None is a failure that says what to install, not a
   * skipped test.
   */
  private static Path oldJava() throws IOException {
    String given = System.getenv("KURIR_TEST_OLD_JAVA");
    if (given != null && !given.isBlank()) {
      return Path.of(given);
    }
    Path best = null;
    int bestFeature = 0;
    Path jvms = Path.of("/usr/lib/jvm");
    if (Files.isDirectory(jvms)) {
      try (Stream<Path> homes = Files.list(jvms)) {
        for (Path home : homes.sorted().toList()) {
          Path java = home.resolve("bin/java");
          int feature = Files.isExecutable(java) ? feature(java) : -1;
          if (feature > 0 && feature < Launcher.MIN_JAVA && feature > bestFeature) {
            best = java;
            bestFeature = feature;
          }
        }
      }
    }
    if (best == null) {
      throw new AssertionError(
          "this test runs the jar on a Java older than 21 and found none under /usr/lib/jvm:"
              + " install one (Debian: apt-get install openjdk-17-jre-headless) or name its java"
              + " binary in KURIR_TEST_OLD_JAVA");
    }
    return best;
  }

  /** The feature version of a java binary, from its home's {@code release} file. */
  private static int feature(Path java) {
    Path release = java.toAbsolutePath().getParent().getParent().resolve("release");
    try {
      for (String line : Files.readAllLines(release, StandardCharsets.UTF_8)) {
        if (line.startsWith("JAVA_VERSION=")) {
          String v = line.substring("JAVA_VERSION=".length()).replace("\"", "");
          v = v.startsWith("1.") ? v.substring(2) : v;
          return Integer.parseInt(v.split("[^0-9]")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }
}
