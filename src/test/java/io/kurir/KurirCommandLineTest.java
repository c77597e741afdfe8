package io.kurir;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The command line as an operator meets it: help on every command, mistakes named with the nearest
 * match and exit status 2, settings flags passed to the settings, {@code kurir admin} that does not
 * create a database unasked, and the shell completion script, run in bash.
 */
class KurirCommandLineTest {
  @TempDir Path dir;
  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int kurir(Map<String, String> env, String... args) {
    return run("kurir", env, args);
  }

  /** Runs as the program named {@code program}: {@code ./kurir}, {@code java -jar kurir.jar}. */
  private int run(String program, Map<String, String> env, String... args) {
    out.reset();
    err.reset();
    return Kurir.run(
        program,
        List.of(args),
        env,
        dir,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private int kurir(String... args) {
    return kurir(Map.of(), args);
  }

  private String stdout() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String stderr() {
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void everyCommandAnswersHelpWithItsUsage() {
    List<List<String>> commands = everyCommand();
    assertThat(commands).as("the tree").hasSizeGreaterThan(30);
    for (List<String> command : commands) {
      List<String> args = new ArrayList<>(command);
      args.add("--help");
      assertThat(kurir(args.toArray(String[]::new))).as(String.join(" ", args)).isZero();
      assertThat(stdout())
          .as(String.join(" ", args))
          .contains(("usage: kurir " + String.join(" ", command)).strip());
    }
    assertThat(kurir("admin", "help")).isZero();
    assertThat(stdout()).contains("usage: kurir admin").contains("device rotate <id>");
    assertThat(kurir("help", "serve")).isZero();
    assertThat(stdout()).contains("usage: kurir serve").contains("--server.port=9000");
    assertThat(kurir("admin", "device", "create", "--help")).isZero();
    assertThat(stdout()).contains("--license=ID").contains("--set=key=value");
  }

  @Test
  void helpAndMessagesNameTheProgramAsTheUserRunsIt() {
    assertThat(Kurir.programName("./kurir", Optional.empty())).isEqualTo("./kurir");
    assertThat(Kurir.programName(null, Optional.of(Path.of("/opt/kurir/kurir.jar"))))
        .isEqualTo("java -jar kurir.jar");
    assertThat(Kurir.programName(" ", Optional.of(Path.of("target/kurir-release.jar"))))
        .isEqualTo("java -jar kurir-release.jar");
    assertThat(Kurir.programName(null, Optional.empty())).isEqualTo("kurir");

    assertThat(run("./kurir", Map.of(), "demo", "--help")).isZero();
    assertThat(stdout())
        .contains("usage: ./kurir demo")
        .contains("  ./kurir demo --port=9000")
        .doesNotContain(" kurir ");
    assertThat(run("./kurir", Map.of(), "--help")).isZero();
    assertThat(stdout())
        .contains("usage: ./kurir [")
        .contains("  ./kurir serve --port=9000")
        .contains("source <(./kurir completion)")
        .doesNotContain(" kurir ");
    assertThat(run("./kurir", Map.of(), "admin", "--help")).isZero();
    assertThat(stdout()).contains("  ./kurir admin <what> <action> --help");
    assertThat(run("java -jar kurir.jar", Map.of(), "serve", "--prot=1")).isEqualTo(2);
    assertThat(stderr())
        .contains("java -jar kurir.jar serve: unknown option '--prot'")
        .contains("See 'java -jar kurir.jar serve --help'.");
    assertThat(run("./kurir", Map.of(), "admin", "--demo", "partner", "list")).isEqualTo(1);
    assertThat(stderr()).contains("run ./kurir demo once");
  }

  @Test
  void eachCommandsHelpShowsExamplesOfThatCommand() {
    assertThat(kurir("demo", "--help")).isZero();
    assertThat(stdout()).contains("  kurir demo --port=9000").doesNotContain("kurir serve");
    assertThat(kurir("serve", "--help")).isZero();
    assertThat(stdout())
        .contains("  kurir serve --server.port=9000")
        .contains("--database.url=jdbc:postgresql://db:5432/kurir")
        .doesNotContain("kurir demo");
    assertThat(kurir("completion", "--help")).isZero();
    assertThat(stdout()).contains("source <(kurir completion)");
  }

  /**
   * At 80 columns, with the longest name the program is run by, no help breaks a file name, a path
   * or an option inside it: picocli wraps a long line after a dot, a slash or a hyphen too.
   */
  @Test
  void helpNeverBreaksAPathAcrossLinesAtEightyColumns() {
    List<List<String>> commands = everyCommand();
    for (String program : List.of("java -jar kurir-release.jar", "./kurir", "kurir")) {
      for (List<String> command : commands) {
        List<String> args = new ArrayList<>(command);
        args.add("--help");
        String what = program + " " + String.join(" ", args);
        assertThat(run(program, Map.of("COLUMNS", "80"), args.toArray(String[]::new)))
            .as(what)
            .isZero();
        List<String> lines = stdout().lines().toList();
        for (int i = 0; i < lines.size(); i++) {
          assertThat(lines.get(i).length())
              .as(what + ", line " + lines.get(i))
              .isLessThanOrEqualTo(80);
          if (i > 0) {
            assertThat(brokenInsideAWord(lines.get(i - 1), lines.get(i)))
                .as(what + ":\n" + lines.get(i - 1) + "\n" + lines.get(i))
                .isFalse();
          }
        }
      }
    }
  }

  /**
   * Whether {@code next} goes on with the word that {@code line} ends in: a line that ends after a
   * slash, a hyphen, an equals sign or an underscore, or after a dot inside a word (not a
   * sentence's end), followed by a line that starts the rest of it.
   */
  private static boolean brokenInsideAWord(String line, String next) {
    String end = line.stripTrailing();
    String start = next.strip();
    if (end.isEmpty() || start.isEmpty() || end.endsWith(" \\")) {
      return false;
    }
    String lastWord = end.substring(end.lastIndexOf(' ') + 1);
    char last = lastWord.charAt(lastWord.length() - 1);
    boolean inWord =
        "/-=_".indexOf(last) >= 0 && lastWord.length() > 1
            || last == '.' && lastWord.matches(".*\\w[./]\\w+\\.");
    char first = start.charAt(0);
    return inWord && (Character.isLowerCase(first) || Character.isDigit(first));
  }

  /** Every command of the tree, as the words that name it ({@code []}: the program itself). */
  private List<List<String>> everyCommand() {
    List<List<String>> commands = new ArrayList<>();
    collect(
        Kurir.commandLine(new Invocation(List.of(), Map.of(), dir, System.out, System.err)),
        new ArrayList<>(),
        commands);
    return commands;
  }

  private static void collect(CommandLine command, List<String> path, List<List<String>> into) {
    into.add(List.copyOf(path));
    command
        .getSubcommands()
        .forEach(
            (name, sub) -> {
              path.add(name);
              collect(sub, path, into);
              path.removeLast();
            });
  }

  @Test
  void mistakesAreNamedWithTheNearestMatchAndExitTwo() {
    assertThat(kurir("admin", "partner", "create", "--nmae", "Acme")).isEqualTo(2);
    assertThat(stderr())
        .contains("kurir admin partner create: unknown option '--nmae'; did you mean --name?")
        .contains("See 'kurir admin partner create --help'.");
    assertThat(kurir("serve", "--server.prot=9000")).isEqualTo(2);
    assertThat(stderr()).contains("unknown option '--server.prot'; did you mean --server.port?");
    assertThat(kurir("demo", "--drivers.sandbox.pacing.min-gpa", "1s")).isEqualTo(2);
    assertThat(stderr()).contains("did you mean --drivers.sandbox.pacing.min-gap?");
    assertThat(kurir("admin", "devcie", "list")).isEqualTo(2);
    assertThat(stderr()).contains("unknown command 'devcie'; did you mean device?");
    assertThat(kurir("srve")).isEqualTo(2);
    assertThat(stderr()).contains("unknown command 'srve'; did you mean serve?");
    assertThat(kurir("admin", "partner", "list", "--zzzzzzzz")).isEqualTo(2);
    assertThat(stderr()).contains("unknown option '--zzzzzzzz'").doesNotContain("did you mean");
    assertThat(kurir("serve", "-x")).isEqualTo(2);
    assertThat(stderr()).contains("unknown option '-x'").doesNotContain("did you mean");
    assertThat(kurir("serve", "extra")).isEqualTo(2);
    assertThat(stderr()).contains("kurir serve: unexpected argument 'extra'");
    assertThat(kurir("admin", "partner", "list", "--name", "x")).isEqualTo(2);
    assertThat(stderr()).as("options belong to their command").contains("unknown option '--name'");
    assertThat(kurir("admin", "partner", "disable", "abc")).isEqualTo(2);
    assertThat(stderr()).contains("'abc' is not an id (digits)");
    assertThat(kurir("admin", "webhook", "list", "--state", "lost")).isEqualTo(2);
    assertThat(stderr()).contains("expected one of [failed, dead, pending, delivered]");
    assertThat(kurir("admin", "license", "expires", "1", "soon")).isEqualTo(2);
    assertThat(stderr()).contains("'soon' is not a date YYYY-MM-DD");
    assertThat(kurir("test")).isEqualTo(2);
    assertThat(stderr()).contains("a command of the ./kurir script");
    assertThat(kurir()).isEqualTo(2);
    assertThat(stderr()).contains("usage: kurir");
    assertThat(dir.resolve("data")).as("no mistake touched a database").doesNotExist();
  }

  @Test
  void settingsFlagsGoToTheSettingsInBothFormsWithTheirShorthands() throws Exception {
    assertThat(kurir("admin", "partner", "list", "--create", "--data", "other")).isZero();
    assertThat(dir.resolve("other/kurir.db")).exists();
    assertThat(kurir("admin", "partner", "list", "--data.dir=third", "--create")).isZero();
    assertThat(dir.resolve("third/kurir.db")).exists();
    Files.writeString(dir.resolve("fourth.yml"), "data:\n  dir: fourth\n");
    assertThat(kurir("admin", "--create", "partner", "list", "--config", "fourth.yml")).isZero();
    assertThat(dir.resolve("fourth/kurir.db")).exists();
    // Shorthand and a value after a space: device qr asks the gateway at that port.
    assertThat(kurir("admin", "device", "qr", "1", "--port", "1", "--token", "x".repeat(16)))
        .isEqualTo(1);
    assertThat(stderr()).contains("cannot reach the gateway at http://127.0.0.1:1");
    assertThat(kurir("admin", "device", "qr", "1", "--server.port", "2", "--token=t")).isEqualTo(1);
    assertThat(stderr()).contains("http://127.0.0.1:2");

    assertThat(kurir("admin", "partner", "list", "--server.port=abc")).isEqualTo(2);
    assertThat(stderr())
        .contains("kurir: configuration problem:")
        .contains("server.port: 'abc' is not a whole number");
    assertThat(kurir("serve", "--port")).isEqualTo(2);
    assertThat(stderr()).contains("--port: needs a value");
    assertThat(kurir("serve", "--config=missing.yml")).isEqualTo(2);
    assertThat(stderr()).contains("config: file").contains("missing.yml does not exist");
    assertThat(kurir(Map.of("KURIR_SERVER_PROT", "9000"), "serve")).isEqualTo(2);
    assertThat(stderr()).contains("KURIR_SERVER_PROT: unknown setting in the environment");
  }

  @Test
  void adminDoesNotCreateADatabaseUnasked() {
    assertThat(kurir("admin", "partner", "list")).isEqualTo(1);
    Path file = dir.resolve("data/kurir.db");
    assertThat(stderr())
        .contains("kurir admin: there is no database at " + file)
        .contains("kurir serve")
        .contains("--create");
    assertThat(dir.resolve("data")).doesNotExist();
    assertThat(stderr()).doesNotContain("--demo");
    assertThat(kurir("admin", "device", "list", "--demo")).isEqualTo(1);
    assertThat(stderr()).contains("no demo database").contains("run kurir demo once");
    // Once the demo has run here, the first admin command without --demo is pointed at it.
    assertThat(kurir("admin", "device", "list", "--demo", "--create")).isZero();
    assertThat(kurir("admin", "device", "list")).isEqualTo(1);
    assertThat(stderr()).contains("there is no database at " + file).contains("add --demo");

    assertThat(kurir("admin", "partner", "create", "--name", "First", "--create")).isZero();
    assertThat(file).exists();
    assertThat(kurir("admin", "partner", "list")).as(stderr()).isZero();
    assertThat(stdout()).contains("\"name\" : \"First\"");
  }

  @Test
  void aDatabaseThatCannotBeReachedIsOneLineNotAStackTrace() {
    // Port 1 on loopback: nothing listens there.
    assertThat(
            kurir("admin", "partner", "list", "--database.url=jdbc:postgresql://127.0.0.1:1/kurir"))
        .isEqualTo(1);
    assertThat(stderr().strip())
        .startsWith("kurir admin partner list: cannot connect to the database")
        .doesNotContain("\tat ")
        .hasLineCount(1);
  }

  @Test
  void theCompletionScriptCompletesCommandsAndOptionsInBash() throws Exception {
    assertThat(kurir("completion")).isZero();
    Path script = dir.resolve("kurir-completion.bash");
    Files.writeString(script, stdout());
    assertThat(stdout()).contains("complete -F _complete_kurir");
    assertThat(complete(script, "kurir", "adm")).contains("admin");
    assertThat(complete(script, "kurir", "admin", "device", ""))
        .contains("qr", "link-code", "rotate", "set");
    assertThat(complete(script, "kurir", "admin", "partner", "create", "--n")).contains("--name");
    assertThat(complete(script, "kurir", "admin", "webhook", "list", "--state", ""))
        .contains("failed", "dead", "pending", "delivered");
    assertThat(complete(script, "kurir", "")).contains("serve", "demo", "completion", "test");
  }

  /**
   * {@code serve --<TAB>} and {@code demo --<TAB>} offer every settings flag, taken from the
   * settings' own list: a setting added later is completed without an edit here or there.
   */
  @Test
  void theCompletionScriptCompletesEverySettingsFlagOfServeAndDemo() throws Exception {
    assertThat(kurir("completion")).isZero();
    Path script = dir.resolve("kurir-completion.bash");
    Files.writeString(script, stdout());
    List<String> flags =
        io.kurir.config.SettingsLoader.flagNames().stream().map(k -> "--" + k).toList();
    assertThat(flags).contains("--server.port", "--admin.token", "--port", "--config");
    assertThat(flags).anyMatch(f -> f.startsWith("--drivers."));
    for (String command : List.of("serve", "demo")) {
      assertThat(complete(script, "kurir", command, "--")).as(command).containsAll(flags);
    }
    assertThat(complete(script, "kurir", "serve", "--server.po")).containsExactly("--server.port");
    assertThat(complete(script, "kurir", "serve", "--webhook."))
        .contains("--webhook.secret-overlap");
    assertThat(complete(script, "kurir", "serve", "--server.port=9000", "--log.l"))
        .containsExactly("--log.level");
  }

  /** What bash offers after the words typed, the last one being completed. */
  private static List<String> complete(Path script, String... words) throws Exception {
    StringBuilder array = new StringBuilder();
    for (String word : words) {
      array.append('\'').append(word).append("' ");
    }
    String line = String.join(" ", words);
    String program =
        "source '"
            + script
            + "'\nCOMP_WORDS=("
            + array
            + ")\nCOMP_CWORD="
            + (words.length - 1)
            + "\nCOMP_LINE='"
            + line
            + "'\nCOMP_POINT=${#COMP_LINE}\n_complete_kurir 2>/dev/null\n"
            + "printf '%s\\n' \"${COMPREPLY[@]}\"\n";
    Process bash = new ProcessBuilder("bash", "-c", program).redirectErrorStream(true).start();
    String output = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(bash.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return output.lines().map(String::strip).toList();
  }
}
