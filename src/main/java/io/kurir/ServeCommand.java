package io.kurir;

import io.kurir.config.Settings;
import io.kurir.config.SettingsLoader.Profile;
import java.time.Clock;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;

/**
 * {@code kurir serve} and {@code kurir demo}: the gateway, on the production defaults or the
 * demo's, until Ctrl+C or SIGTERM. Settings come as flags ({@link Invocation}).
 */
@Command(
    description = "run the gateway",
    footer = {
      "",
      "Settings: --<key>=<value> (or --<key> <value>) for any setting of kurir.example.yml, over",
      "KURIR_* variables, over kurir.yml (or --config=<file>), over the defaults:",
      "  kurir serve --server.port=9000 --database.url=jdbc:postgresql://db:5432/kurir",
      "Shorthands: --port, --host, --data (data.dir), --config=<file>."
    })
final class ServeCommand implements Callable<Integer> {
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
                  gateway.close();
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
