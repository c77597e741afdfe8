package io.kurir;

import io.kurir.config.Settings;
import io.kurir.config.SettingsLoader;
import io.kurir.config.SettingsLoader.Profile;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One run of the command line: the settings flags it was given, the environment and folder it runs
 * in, and where it prints. Settings are generic keys ({@code --server.port=9000}, and whatever keys
 * later versions add), so they are not options of the parser: {@link #split} takes them out of the
 * arguments before parsing, and {@link SettingsLoader} checks them as it checks the file and the
 * environment.
 */
record Invocation(
    List<String> settingFlags,
    Map<String, String> env,
    Path workDir,
    PrintStream out,
    PrintStream err) {

  /** The settings of this run: its flags over {@code KURIR_*} over the file over the defaults. */
  Settings settings(Profile profile) {
    return SettingsLoader.load(profile, settingFlags, env, workDir);
  }

  /**
   * Splits {@code args} into settings flags (into {@code settingFlags}) and what the parser reads
   * (returned). A {@code --key} is a settings flag when no command declares it and {@link
   * SettingsLoader#isFlag} knows the key; its value is after {@code =} or the next argument, as
   * {@link SettingsLoader} reads it. Anything else, unknown options included, is left to the
   * parser, which rejects what it does not know with the nearest match.
   */
  static List<String> split(
      List<String> args, Set<String> declaredOptions, List<String> settingFlags) {
    List<String> rest = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      if (arg.equals("--")) { // the end of options: the rest are words
        rest.addAll(args.subList(i, args.size()));
        break;
      }
      int eq = arg.indexOf('=');
      String name = eq < 0 ? arg : arg.substring(0, eq);
      if (!arg.startsWith("--")
          || name.length() == 2
          || declaredOptions.contains(name)
          || !SettingsLoader.isFlag(name.substring(2))) {
        rest.add(arg);
        continue;
      }
      settingFlags.add(arg);
      if (eq < 0 && i + 1 < args.size() && !args.get(i + 1).startsWith("--")) {
        settingFlags.add(args.get(++i));
      }
    }
    return rest;
  }
}
