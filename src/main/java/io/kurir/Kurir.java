package io.kurir;

import io.kurir.config.SettingsLoader.Profile;
import io.kurir.device.QrCodes;
import io.kurir.tenant.DemoAccount;
import io.kurir.tenant.Device;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * The command line: {@code kurir serve}, {@code demo}, {@code admin …} and {@code completion},
 * parsed by picocli. Every command answers {@code --help}; a mistake (an unknown option or command,
 * a missing value) is named with the nearest match and exits with status 2 ({@link UsageErrors}).
 * Settings flags are not options of the parser but go to {@link io.kurir.config.SettingsLoader}
 * (see {@link Invocation}).
 */
@Command(
    name = "kurir",
    description = "Kurir, a self-hosted messaging gateway.",
    versionProvider = Kurir.Version.class,
    footer = {
      "",
      "Settings are flags of serve, demo and admin: --<key>=<value> for any key",
      "of kurir.example.yml, as in --server.port=9000.",
      "Examples:",
      "  ${ROOT-COMMAND-NAME} demo",
      "  ${ROOT-COMMAND-NAME} serve --port=9000",
      "  ${ROOT-COMMAND-NAME} admin license list",
      "Shell completion (see docs/operations.md):",
      "  source <(${ROOT-COMMAND-NAME} completion)"
    })
public final class Kurir implements Callable<Integer> {
  /** Commands of the {@code ./kurir} script in the source folder, which this program cannot run. */
  private static final Map<String, String> LAUNCHER_COMMANDS = new LinkedHashMap<>();

  static {
    LAUNCHER_COMMANDS.put("test", "run the full test suite (./kurir script, source folder)");
    LAUNCHER_COMMANDS.put("bench", "run the benchmarks under bench/ (./kurir script)");
    LAUNCHER_COMMANDS.put("format", "rewrite the sources in the enforced format (./kurir script)");
    LAUNCHER_COMMANDS.put("build", "build target/run/kurir.jar (./kurir script)");
    LAUNCHER_COMMANDS.put("release", "build target/kurir-release.jar (./kurir script)");
  }

  @Spec CommandSpec spec;
  private final Invocation invocation;

  private Kurir(Invocation invocation) {
    this.invocation = invocation;
  }

  public static void main(String[] args) {
    // A gateway stopped by a signal gets here while the shutdown hooks run: exit then only waits
    // for them to finish.
    System.exit(run(List.of(args), System.getenv(), workDir(), System.out, System.err));
  }

  /** Runs one command line and answers its exit status: 0 done, 1 failed, 2 a usage error. */
  static int run(
      List<String> args, Map<String, String> env, Path workDir, PrintStream out, PrintStream err) {
    String program = programName(System.getProperty(PROGRAM_PROPERTY), jarFile());
    return run(program, args, env, workDir, out, err);
  }

  /** {@link #run} with the program named {@code program} in its help and messages. */
  static int run(
      String program,
      List<String> args,
      Map<String, String> env,
      Path workDir,
      PrintStream out,
      PrintStream err) {
    List<String> settingFlags = new ArrayList<>();
    Invocation invocation = new Invocation(settingFlags, env, workDir, out, err);
    CommandLine commandLine = commandLine(invocation);
    commandLine.setCommandName(program);
    List<String> parsed = Invocation.split(args, optionNames(commandLine), settingFlags);
    return commandLine.execute(parsed.toArray(String[]::new));
  }

  /** The system property in which the {@code ./kurir} script passes the name it was run by. */
  static final String PROGRAM_PROPERTY = "kurir.program";

  /**
   * What a user types to run this program, as help and messages name it: the name the {@code
   * ./kurir} script was run by ({@code ./kurir} in a checkout), else {@code java -jar <the jar's
   * file>} (the release jar, the container), else {@code kurir} (the classes folder: the tests).
   */
  static String programName(String launcherName, Optional<Path> jar) {
    if (launcherName != null && !launcherName.isBlank()) {
      return launcherName.strip();
    }
    return jar.map(file -> "java -jar " + file.getFileName()).orElse("kurir");
  }

  /** The jar this class was loaded from, if it was loaded from one. */
  private static Optional<Path> jarFile() {
    try {
      var source = Kurir.class.getProtectionDomain().getCodeSource();
      Path path = source == null ? null : Path.of(source.getLocation().toURI());
      return path != null && path.toString().endsWith(".jar")
          ? Optional.of(path)
          : Optional.empty();
    } catch (java.net.URISyntaxException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** The whole command tree, printing to the invocation's streams. */
  static CommandLine commandLine(Invocation invocation) {
    CommandLine kurir = new CommandLine(new Kurir(invocation));
    kurir.getCommandSpec().mixinStandardHelpOptions(true);
    for (Profile profile : Profile.values()) {
      ServeCommand serve = new ServeCommand(profile, invocation);
      CommandLine command = new CommandLine(serve);
      command.getCommandSpec().usageMessage().description(serve.description());
      command.getCommandSpec().usageMessage().footer(serve.footer());
      kurir.addSubcommand(profile.name().toLowerCase(Locale.ROOT), command);
    }
    kurir.addSubcommand("admin", AdminCommand.commandLine(invocation));
    kurir.addSubcommand("completion", new CompletionCommand(invocation));
    kurir.addSubcommand("health", new HealthCommand(invocation));
    LAUNCHER_COMMANDS.forEach(
        (name, description) -> kurir.addSubcommand(name, launcherCommand(name, description)));
    configure(kurir);
    kurir.setOut(new PrintWriter(invocation.out(), true));
    kurir.setErr(new PrintWriter(invocation.err(), true));
    UsageErrors errors = new UsageErrors(invocation);
    kurir.setParameterExceptionHandler(errors);
    kurir.setExecutionExceptionHandler(errors);
    // Written twice, an option counts as its last value, as the settings flags do.
    kurir.setOverwrittenOptionsAllowed(true);
    return kurir;
  }

  /** Help on every command: {@code --help}, a {@code help} command where there are commands. */
  private static void configure(CommandLine command) {
    CommandSpec spec = command.getCommandSpec();
    spec.usageMessage().synopsisHeading("usage: ");
    if (spec.findOption("--help") == null) {
      spec.addOption(
          OptionSpec.builder("-h", "--help")
              .usageHelp(true)
              .description("Show this help.")
              .build());
    }
    if (!command.getSubcommands().isEmpty() && !command.getSubcommands().containsKey("help")) {
      command.addSubcommand("help", new CommandLine.HelpCommand());
    }
    command.getSubcommands().values().forEach(Kurir::configure);
  }

  /** Every option name in the tree, which {@link Invocation#split} leaves to the parser. */
  private static Set<String> optionNames(CommandLine command) {
    Set<String> names = new HashSet<>();
    command.getCommandSpec().options().forEach(o -> names.addAll(List.of(o.names())));
    command.getSubcommands().values().forEach(sub -> names.addAll(optionNames(sub)));
    return names;
  }

  /**
   * A command of the {@code ./kurir} script, listed so that help, completion and "did you mean"
   * know every word {@code kurir} takes; this program only says where to run it.
   */
  private static CommandLine launcherCommand(String name, String description) {
    CommandLine command = new CommandLine(new LauncherCommand(name));
    command.getCommandSpec().usageMessage().description(description);
    return command;
  }

  @Command
  private static final class LauncherCommand implements Callable<Integer> {
    private final String name;
    @Spec CommandSpec spec;

    /** Whatever follows is the script's to read. */
    @Unmatched List<String> rest;

    LauncherCommand(String name) {
      this.name = name;
    }

    @Override
    public Integer call() {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          name
              + " is a command of the ./kurir script in Kurir's source folder (it needs the"
              + " sources and Maven): run ./kurir "
              + name
              + " there");
    }
  }

  /** {@code kurir} alone: what it takes, on standard error, as a usage error. */
  @Override
  public Integer call() {
    spec.commandLine().usage(invocation.err());
    return UsageErrors.USAGE;
  }

  /** The version in the jar's manifest; "development build" when run from the classes folder. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = Kurir.class.getPackage().getImplementationVersion();
      return new String[] {"kurir " + (version == null ? "(development build)" : version)};
    }
  }

  /** One line that says why the gateway could not start; Kurir's own messages as they are. */
  static String describe(Throwable e) {
    if (e instanceof IllegalStateException && e.getMessage() != null) {
      return e.getMessage(); // written for the operator (the port, the lock, the database file)
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.net.BindException) {
        return "the port is in use (" + t.getMessage() + "); choose another with --port=<n>";
      }
    }
    return e.getMessage() == null ? e.toString() : e.getMessage();
  }

  static String demoBanner(Gateway gateway) {
    String url = gateway.baseUrl();
    // The keys as they are now: an operator may have rotated the fixed ones of the first start.
    String key = DemoAccount.first(gateway.tenants()).ecoKey();
    Device secondDevice = DemoAccount.second(gateway.tenants());
    String secondKey = secondDevice.ecoKey();
    // A partner's secret is stored as its hash: the demo knows the one it seeded; a rotated one was
    // shown once, at its rotation.
    String partnerSecret =
        io.kurir.tenant.Credentials.matches(
                DemoAccount.partner(gateway.tenants()).basicSecret(), DemoAccount.PARTNER_SECRET)
            ? DemoAccount.PARTNER_SECRET
            : "(rotated: shown when it was rotated)";
    long second = secondDevice.id();
    // The secret as it is now (rotated or not): a receiver needs it to check each call.
    String webhookSecret = gateway.tenants().license(secondDevice.licenseId()).webhookSecret();
    String secondQr =
        gateway
            .sandbox()
            .pairingCodeOf(secondDevice.ref())
            .map(QrCodes::terminal)
            .orElse("(the second device is paired already: log it out to pair it again)\n");
    String phone = "6281234567890";
    return String.join(
        "\n",
        "",
        "Kurir demo is running at " + url,
        "",
        "  console       "
            + url
            + "/console   (sign in with the admin token below; a customer with "
            + DemoAccount.LICENSE
            + ")",
        "  demo key      " + key,
        "  demo device   " + DemoAccount.DEVICE_NUMBER + " (sandbox driver, paired)",
        "  admin token   " + gateway.settings().adminToken(),
        "  license       "
            + DemoAccount.LICENSE
            + "   (Account API; partner login "
            + DemoAccount.PARTNER_USER
            + ":"
            + partnerSecret
            + " for the Partner API)",
        "  data          " + gateway.settings().dataDir(),
        "",
        "Send a message (answers success):",
        "  curl -s -X POST " + url + "/api/send_message -H 'Content-Type: application/json' \\",
        "    -d '{\"key\":\""
            + key
            + "\",\"phone_no\":\"0812-3456-7890\",\"message\":\"Hello from Kurir\"}'",
        "",
        "Queue one (answers its id):",
        "  curl -s -X POST "
            + url
            + "/api/async_send_message -H 'Content-Type: application/json' \\",
        "    -d '{\"key\":\""
            + key
            + "\",\"phone_no\":\""
            + phone
            + "\",\"message\":\"Queued<ENTER>second line\"}'",
        "",
        "See what the simulated phone received:",
        "  curl -s " + url + "/sandbox/phones/" + phone + "/inbox",
        "",
        "Look a message up (put an id from above):",
        "  curl -s -X POST "
            + url
            + "/api/check_delivery_status -H 'Content-Type: application/json' \\",
        "    -d '{\"key\":\"" + key + "\",\"messageId\":\"<id>\"}'",
        "",
        "Watch a second device pair by QR code ("
            + DemoAccount.SECOND_NUMBER
            + ", key "
            + secondKey
            + "):",
        "  register a webhook first to receive every state change, e.g. to a listener of yours:",
        "  curl -s -X POST " + url + "/api/webhook_status -H 'Content-Type: application/json' \\",
        "    -d '{\"key\":\""
            + secondKey
            + "\",\"action\":\"add\",\"url\":\"http://127.0.0.1:9999/hook\"}'",
        "  its calls are signed with the license's webhook secret " + webhookSecret,
        "  (X-Kurir-Signature: sha256=HMAC-SHA256 of <X-Kurir-Timestamp>.<body>; docs/webhooks.md);",
        "  the device's webhook URLs and that secret again:",
        "  curl -s "
            + url
            + "/admin/devices/"
            + second
            + " -H 'Authorization: Bearer "
            + gateway.settings().adminToken()
            + "'",
        "  ./kurir admin device qr "
            + second
            + " --demo --url "
            + url
            + "   (shows the QR and its code, waits for the scan)",
        "  curl -s -X POST " + url + "/sandbox/scan -d '{\"code\":\"<the code it prints>\"}'",
        "  curl -s -X POST "
            + url
            + "/sandbox/devices/"
            + DemoAccount.SECOND_NUMBER.substring(1)
            + "/offline",
        "",
        "The QR code the phone scans now (it rotates every 20 s):",
        secondQr,
        "Press Ctrl+C to stop.");
  }

  private static Path workDir() {
    return Path.of("").toAbsolutePath();
  }
}
