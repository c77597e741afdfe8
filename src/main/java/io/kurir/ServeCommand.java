package io.kurir;

import io.kurir.config.Settings;
import io.kurir.config.SettingsLoader.Profile;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;

/**
 * {@code kurir serve} and {@code kurir demo}: the gateway, on the production defaults or the
 * demo's, until Ctrl+C or SIGTERM. Settings come as flags ({@link Invocation}).
 */
@Command(description = "run the gateway")
final class ServeCommand implements Callable<Integer> {
  /** Named after the gateway, whose stop it reports: "Gateway: stopped in 212 ms". */
  private static final Logger STOPS = LoggerFactory.getLogger(Gateway.class);

  private final Profile profile;
  private final Invocation invocation;

  ServeCommand(Profile profile, Invocation invocation) {
    this.profile = profile;
    this.invocation = invocation;
  }

  /** The description {@code kurir --help} shows for this command. */
  String description() {
    return profile == Profile.DEMO
        ? "run the gateway on the demo defaults (sandbox network, demo key, data/demo)"
        : "run the gateway";
  }

  /**
   * The end of this command's help: how settings are given, and examples of this command. Lines are
   * short and every path starts or ends a line, so that no path breaks at 80 columns however long
   * the program's name ({@link Kurir#programName}).
   */
  String[] footer() {
    String run = "  ${ROOT-COMMAND-NAME} " + profile.name().toLowerCase(Locale.ROOT);
    List<String> lines = new ArrayList<>();
    lines.add("");
    lines.add("Settings: --<key>=<value> (or --<key> <value>) for any setting of");
    if (profile == Profile.DEMO) {
      // The demo reads no kurir.yml unasked: a production one must not point it elsewhere.
      lines.add("kurir.example.yml, over KURIR_* variables, over the file named by");
      lines.add("--config=<file> (a kurir.yml is not read unnamed), over the demo defaults.");
    } else {
      lines.add("kurir.example.yml, over KURIR_* variables, over kurir.yml (or");
      lines.add("--config=<file>), over the defaults.");
    }
    lines.add("Shorthands: --port, --host, --data (data.dir), --config=<file>.");
    lines.add("Examples:");
    if (profile == Profile.DEMO) {
      lines.add(run);
      lines.add(run + " --port=9000");
      lines.add(run + " --data=/tmp/kurir-demo");
    } else {
      lines.add(run + " --server.port=9000");
      lines.add(run + " --config=/etc/kurir/kurir.yml");
      lines.add(run + " --data=/var/lib/kurir \\");
      lines.add("      --database.url=jdbc:postgresql://db:5432/kurir");
    }
    return lines.toArray(String[]::new);
  }

  /**
   * Stops the gateway on Ctrl+C or SIGTERM, with a log line when the stop begins and one when it
   * has ended: in a log, a clean stop looks different from a crash, and a slow one shows.
   */
  private static void stopCleanly(Gateway gateway) {
    long began = System.nanoTime(); // a duration for the log, not a time the gateway acts on
    STOPS.info("stopping (Ctrl+C or SIGTERM): finishing the work under way");
    gateway.close();
    STOPS.info("stopped in {} ms", Duration.ofNanos(System.nanoTime() - began).toMillis());
  }

  @Override
  public Integer call() {
    Settings settings = invocation.settings(profile);
    io.kurir.logging.Logging.configure(settings.logs());
    Gateway gateway;
    try {
      gateway = Gateway.start(settings, Clock.systemUTC());
    } catch (RuntimeException e) {
      invocation.err().println("kurir: could not start: " + Kurir.describe(e));
      return 1;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  stopCleanly(gateway);
                  stopped.countDown();
                },
                "kurir-shutdown"));
    if (profile == Profile.DEMO) {
      invocation.out().println(Kurir.demoBanner(gateway));
    } else {
      invocation.out().println("Kurir is listening on " + gateway.listeningOn());
      invocation.out().println("Web console: " + gateway.baseUrl() + "/console");
      if (settings.adminTokenIfSet().isEmpty()) {
        invocation
            .out()
            .println("The Admin API is off: set admin.token (KURIR_ADMIN_TOKEN) to use it.");
      }
    }
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 0;
  }
}
