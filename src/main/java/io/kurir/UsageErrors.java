package io.kurir;

import io.kurir.config.NearestName;
import io.kurir.config.SettingsException;
import io.kurir.config.SettingsLoader;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * How the command line answers a mistake: one line that names it (an unknown option or command with
 * the nearest one it may have meant, among the command's options and, for the commands that take
 * settings, every setting), a pointer to the command's help, and exit status 2; a settings problem
 * lists each bad setting, also with status 2. Any other failure of a command is one line with
 * status 1, never a stack trace.
 */
final class UsageErrors
    implements CommandLine.IParameterExceptionHandler, CommandLine.IExecutionExceptionHandler {

  /** The exit status of a usage error, which scripts can tell from a failed operation (1). */
  static final int USAGE = 2;

  /** The commands that read settings flags (every command under them too). */
  static final Set<String> SETTINGS_COMMANDS = Set.of("serve", "demo", "admin");

  private final Invocation invocation;

  UsageErrors(Invocation invocation) {
    this.invocation = invocation;
  }

  @Override
  public int handleParseException(ParameterException e, String[] args) {
    CommandSpec spec = e.getCommandLine().getCommandSpec();
    invocation.err().println(spec.qualifiedName() + ": " + describe(e, spec));
    invocation.err().println("See '" + spec.qualifiedName() + " --help'.");
    return USAGE;
  }

  @Override
  public int handleExecutionException(
      Exception e, CommandLine command, CommandLine.ParseResult parsed) {
    if (e instanceof SettingsException) {
      invocation.err().println("kurir: configuration problem:");
      e.getMessage().lines().forEach(line -> invocation.err().println("  " + line));
      return USAGE;
    }
    // Not a mistake in the command: one line that says what failed (the database that cannot be
    // reached, a folder that cannot be written), as the gateway says why it cannot start.
    invocation.err().println(command.getCommandSpec().qualifiedName() + ": " + Kurir.describe(e));
    return 1;
  }

  private static String describe(ParameterException e, CommandSpec spec) {
    // An unknown option is named first: a required one "missing" is often the one mistyped.
    List<String> unmatched =
        e instanceof UnmatchedArgumentException u
            ? u.getUnmatched()
            : e.getCommandLine().getUnmatchedArguments();
    if (unmatched.isEmpty()) {
      return e.getMessage();
    }
    String first = unmatched.getFirst();
    if (first.startsWith("-")) {
      String name = first.contains("=") ? first.substring(0, first.indexOf('=')) : first;
      return "unknown option '" + name + "'" + didYouMean(name, optionsOf(spec));
    }
    if (!spec.subcommands().isEmpty()) {
      return "unknown command '" + first + "'" + didYouMean(first, spec.subcommands().keySet());
    }
    return "unexpected argument '" + first + "'";
  }

  /** The option names a mistyped one may have meant: the command's own, then the settings. */
  private static List<String> optionsOf(CommandSpec spec) {
    List<String> names = new ArrayList<>();
    for (OptionSpec option : spec.options()) {
      if (!option.hidden()) {
        names.addAll(List.of(option.names()));
      }
    }
    if (takesSettings(spec)) {
      SettingsLoader.flagNames().forEach(key -> names.add("--" + key));
    }
    return names;
  }

  private static boolean takesSettings(CommandSpec spec) {
    CommandSpec top = spec;
    while (top.parent() != null && top.parent().parent() != null) {
      top = top.parent();
    }
    return top.parent() != null && SETTINGS_COMMANDS.contains(top.name());
  }

  /** "; did you mean X?" with the nearest candidate, or nothing when none is near. */
  static String didYouMean(String typed, Collection<String> candidates) {
    return NearestName.to(typed, candidates).map(best -> "; did you mean " + best + "?").orElse("");
  }
}
