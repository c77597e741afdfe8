package io.kurir;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.kurir.config.Settings;
import io.kurir.config.SettingsLoader;
import io.kurir.config.SettingsLoader.Profile;
import io.kurir.driver.DriverCatalog;
import io.kurir.phone.PhoneNumbers;
import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.tenant.TenantException;
import io.kurir.tenant.TenantViews;
import io.kurir.tenant.Tenants;
import io.kurir.tenant.Tenants.Credential;
import io.kurir.time.Timestamps;
import io.kurir.webhook.WebhookDeliveries;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code ./kurir admin}: the Admin API's operations from the command line, working on the
 * configured database directly, so it works whether or not the gateway is running. Prints JSON in
 * the Admin API's shapes.
 */
final class AdminCommand {
  private static final Set<String> OPTIONS =
      Set.of(
          "name", "email", "partner", "license", "number", "driver", "expires", "allow", "allowed",
          "url", "token", "state");

  private static final String HELP =
      String.join(
          "\n",
          "usage: kurir admin <what> <action> [id] [options] [--setting=value ...]",
          "",
          "  partner create --name N [--email E]      partner list",
          "  partner disable|enable|rotate-secret <id>",
          "  license create --partner ID --name N [--email E] [--expires YYYY-MM-DD]"
              + " [--allow 203.0.113.5,10.0.0.0/8]",
          "  license list                              license disable|enable <id>",
          "  license expires <id> YYYY-MM-DD|never     (renews or ends a license)",
          "  license rotate-push-key <id>",
          "  device create --license ID --number N [--driver NAME] [--set key=value ...]",
          "  device set <id> --set key=value [...]     (changes its driver configuration;",
          "                                            an empty value removes a key)",
          "  device list                               device disable|enable <id>",
          "  device rotate <id> [key|device-key|crm-id]   (default: key)",
          "  webhook list [--state failed|dead|pending|delivered]   webhook replay <id>",
          "  device qr <id> [--url http://127.0.0.1:8080] [--token <admin.token>]",
          "      shows the pairing QR code of a running gateway and waits until it is scanned",
          "  device link-code <id> [--url …] [--token …]",
          "      a code to type on the device's phone instead of scanning (drivers that have one)",
          "",
          "Settings flags choose the database, as for serve (--data.dir=data, --config=kurir.yml);",
          "--demo works on the database of ./kurir demo.");

  private AdminCommand() {}

  static int run(List<String> args, Map<String, String> env, Path workDir) {
    return run(args, env, workDir, System.out, System.err);
  }

  static int run(
      List<String> args, Map<String, String> env, Path workDir, PrintStream out, PrintStream err) {
    List<String> words = new ArrayList<>();
    Map<String, String> options = new HashMap<>();
    Map<String, String> config = new java.util.LinkedHashMap<>();
    List<String> settingFlags = new ArrayList<>();
    Profile profile = Profile.SERVE;
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (a.equals("--demo")) {
        profile = Profile.DEMO;
      } else if (a.startsWith("--")) {
        String body = a.substring(2);
        String key = body.contains("=") ? body.substring(0, body.indexOf('=')) : body;
        String value;
        if (body.contains("=")) {
          value = body.substring(body.indexOf('=') + 1);
        } else if (i + 1 < args.size() && !args.get(i + 1).startsWith("--")) {
          value = args.get(++i);
        } else {
          err.println("kurir admin: --" + key + " needs a value, as in --" + key + "=...");
          return 2;
        }
        if (key.equals("set")) {
          int eq = value.indexOf('=');
          if (eq <= 0) {
            err.println("kurir admin: --set needs key=value, as in --set access-token=...");
            return 2;
          }
          config.put(value.substring(0, eq).strip(), value.substring(eq + 1));
        } else if (OPTIONS.contains(key)) {
          options.put(key, value);
        } else {
          settingFlags.add("--" + key + "=" + value);
        }
      } else {
        words.add(a);
      }
    }
    if (!words.isEmpty() && words.getFirst().equals("help")) {
      out.println(HELP);
      return 0;
    }
    if (words.size() < 2) {
      err.println(HELP);
      return 2;
    }
    Settings settings = SettingsLoader.load(profile, settingFlags, env, workDir);
    if (words.get(0).equals("device") && words.get(1).equals("qr")) {
      return PairingQr.show(words, options, settings, out, err);
    }
    if (words.get(0).equals("device") && words.get(1).equals("link-code")) {
      return PairingQr.linkCode(words, options, settings, out, err);
    }
    try (Database db = Database.open(settings.database())) {
      Clock clock = Clock.systemUTC();
      Tenants tenants =
          new Tenants(
              db,
              new IdGenerator(clock, settings.nodeId()),
              clock,
              settings.zone(),
              new PhoneNumbers(settings.defaultRegion()),
              DriverCatalog.standard());
      Timestamps timestamps = new Timestamps(settings.zone());
      Object result =
          execute(
              words,
              options,
              config,
              tenants,
              new TenantViews(timestamps),
              timestamps,
              new WebhookDeliveries(db, Clock.systemUTC()));
      out.println(json(result));
      return 0;
    } catch (TenantException | IllegalArgumentException e) {
      err.println("kurir admin: " + e.getMessage());
      return 1;
    }
  }

  private static Object execute(
      List<String> words,
      Map<String, String> o,
      Map<String, String> config,
      Tenants tenants,
      TenantViews views,
      Timestamps timestamps,
      WebhookDeliveries webhooks) {
    String what = words.get(0);
    String action = words.get(1);
    return switch (what + " " + action) {
      case "partner create" -> views.of(tenants.createPartner(need(o, "name"), o.get("email")));
      case "partner list" -> tenants.partners().stream().map(views::of).toList();
      case "partner disable" -> done(() -> tenants.setPartnerDisabled(id(words), true));
      case "partner enable" -> done(() -> tenants.setPartnerDisabled(id(words), false));
      case "partner rotate-secret" -> views.of(tenants.rotatePartnerSecret(id(words)));
      case "license rotate-push-key" -> views.of(tenants.rotatePushKey(id(words)));
      case "license create" ->
          views.of(
              tenants.createLicense(
                  parseId(need(o, "partner")),
                  need(o, "name"),
                  o.get("email"),
                  o.containsKey("expires") ? date(o.get("expires")) : null,
                  allowed(o)));
      case "license list" -> tenants.licenses().stream().map(views::of).toList();
      case "license disable" -> done(() -> tenants.setLicenseDisabled(id(words), true));
      case "license enable" -> done(() -> tenants.setLicenseDisabled(id(words), false));
      case "license expires" -> {
        if (words.size() < 4) {
          throw new IllegalArgumentException("license expires <id> YYYY-MM-DD|never");
        }
        String day = words.get(3);
        yield views.of(
            tenants.setLicenseExpiry(id(words), day.equalsIgnoreCase("never") ? null : date(day)));
      }
      case "device create" ->
          views.of(
              tenants.createDevice(
                  parseId(need(o, "license")), need(o, "number"), o.get("driver"), config),
              tenants);
      case "device set" -> {
        if (config.isEmpty()) {
          throw new IllegalArgumentException("device set <id> needs --set key=value");
        }
        yield views.of(tenants.configureDevice(id(words), config), tenants);
      }
      case "device list" -> tenants.devices().stream().map(d -> views.of(d, tenants)).toList();
      case "webhook list" ->
          webhooks.list(o.getOrDefault("state", "failed")).stream()
              .map(d -> io.kurir.api.admin.AdminRoutes.view(d, timestamps))
              .toList();
      case "webhook replay" -> {
        if (!webhooks.replay(id(words))) {
          throw new IllegalArgumentException("no failed or dead delivery " + words.get(2));
        }
        yield Map.of("status", "ok");
      }
      case "device disable" -> done(() -> tenants.setDeviceDisabled(id(words), true));
      case "device enable" -> done(() -> tenants.setDeviceDisabled(id(words), false));
      case "device rotate" ->
          views.of(
              tenants.rotate(id(words), Credential.parse(words.size() > 3 ? words.get(3) : "key")));
      default ->
          throw new IllegalArgumentException(
              "unknown command '" + what + " " + action + "'; see kurir admin help");
    };
  }

  private static List<String> allowed(Map<String, String> options) {
    String list = options.getOrDefault("allow", options.get("allowed"));
    return list == null ? List.of() : Arrays.asList(list.split(","));
  }

  private static Map<String, String> done(Runnable action) {
    action.run();
    return Map.of("status", "ok");
  }

  private static String need(Map<String, String> options, String name) {
    String v = options.get(name);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException("--" + name + " is required");
    }
    return v;
  }

  private static long id(List<String> words) {
    if (words.size() < 3) {
      throw new IllegalArgumentException(
          "give the id, as in: kurir admin " + words.get(0) + " " + words.get(1) + " <id>");
    }
    return parseId(words.get(2));
  }

  private static long parseId(String raw) {
    try {
      return Long.parseLong(raw.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + raw + "' is not an id (digits)");
    }
  }

  private static LocalDate date(String raw) {
    try {
      return LocalDate.parse(raw.strip());
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("--expires must be a date YYYY-MM-DD");
    }
  }

  private static String json(Object value) {
    try {
      return new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
