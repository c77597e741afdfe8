package io.kurir;

import io.kurir.config.Settings;
import io.kurir.config.SettingsException;
import io.kurir.config.SettingsLoader;
import io.kurir.config.SettingsLoader.Profile;
import io.kurir.device.QrCodes;
import io.kurir.tenant.DemoAccount;
import io.kurir.tenant.Device;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/** The command line: {@code serve}, {@code demo} and {@code admin}. */
public final class Kurir {
  private Kurir() {}

  public static void main(String[] args) {
    if (args.length == 0) {
      usage();
      System.exit(2);
    }
    List<String> rest = Arrays.asList(args).subList(1, args.length);
    try {
      switch (args[0]) {
        case "serve" -> serve(Profile.SERVE, rest);
        case "demo" -> serve(Profile.DEMO, rest);
        case "admin" -> System.exit(AdminCommand.run(rest, System.getenv(), workDir()));
        case "help", "--help", "-h" -> usage();
        default -> {
          System.err.println("kurir: unknown command '" + args[0] + "'");
          usage();
          System.exit(2);
        }
      }
    } catch (SettingsException e) {
      System.err.println("kurir: configuration problem:");
      e.getMessage().lines().forEach(line -> System.err.println("  " + line));
      System.exit(2);
    }
  }

  private static void serve(Profile profile, List<String> flags) {
    if (flags.contains("--help") || flags.contains("-h")) {
      usage();
      return;
    }
    Settings settings = SettingsLoader.load(profile, flags, System.getenv(), workDir());
    Gateway gateway;
    try {
      gateway = Gateway.start(settings, Clock.systemUTC());
    } catch (RuntimeException e) {
      System.err.println("kurir: could not start: " + describe(e));
      System.exit(1);
      return;
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
      System.out.println(demoBanner(gateway));
    } else {
      System.out.println("Kurir is listening on " + gateway.listeningOn());
      System.out.println("Web console: " + gateway.baseUrl() + "/console");
      if (settings.adminTokenIfSet().isEmpty()) {
        System.out.println(
            "The Admin API and the operators' console are off: set admin.token"
                + " (KURIR_ADMIN_TOKEN) to use them.");
      }
    }
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
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
    String key = DemoAccount.KEY;
    Device secondDevice = DemoAccount.second(gateway.tenants());
    long second = secondDevice.id();
    String secondQr =
        gateway
            .sandbox()
            .pairingCodeOf(secondDevice)
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
            + DemoAccount.PARTNER_SECRET
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
            + DemoAccount.SECOND_KEY
            + "):",
        "  register a webhook first to receive every state change, e.g. to a listener of yours:",
        "  curl -s -X POST " + url + "/api/webhook_status -H 'Content-Type: application/json' \\",
        "    -d '{\"key\":\""
            + DemoAccount.SECOND_KEY
            + "\",\"action\":\"add\",\"url\":\"http://127.0.0.1:9999/hook\"}'",
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

  private static void usage() {
    System.out.println(
        String.join(
            "\n",
            "usage: kurir <command> [--setting=value ...]   (settings: see kurir.example.yml)",
            "  serve   run the gateway",
            "  demo    run the gateway on the demo defaults (sandbox, demo key)",
            "  admin   manage partners, licenses and devices (kurir admin help)"));
  }
}
