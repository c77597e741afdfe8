package io.kurir;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.kurir.api.admin.AdminRoutes;
import io.kurir.api.v1.V1WebhookHandlers;
import io.kurir.config.Settings;
import io.kurir.config.SettingsLoader.Profile;
import io.kurir.device.DeviceStates;
import io.kurir.driver.standard.StandardDrivers;
import io.kurir.media.SafeFetcher;
import io.kurir.phone.PhoneNumbers;
import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.store.InstanceLock;
import io.kurir.store.SecretBox;
import io.kurir.store.SecretKeys;
import io.kurir.store.StoredSecrets;
import io.kurir.tenant.ApiScope;
import io.kurir.tenant.DeviceDrivers;
import io.kurir.tenant.TenantException;
import io.kurir.tenant.TenantViews;
import io.kurir.tenant.Tenants;
import io.kurir.tenant.Tenants.Credential;
import io.kurir.time.Timestamps;
import io.kurir.webhook.MessageWebhooks;
import io.kurir.webhook.SubscriptionRefused;
import io.kurir.webhook.WebhookDeliveries;
import io.kurir.webhook.WebhookSubscriptions;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code kurir admin}: the Admin API's operations from the command line, working on the configured
 * database directly, so it works whether or not the gateway is running. Prints JSON in the Admin
 * API's shapes and exits 0; a refused operation prints {@code kurir admin: <problem>} and exits 1;
 * a usage error exits 2. It never creates a database unasked ({@code --create}): a mistyped data
 * folder would otherwise look like an empty installation.
 */
@Command(
    description = "manage partners, licenses, devices and webhook deliveries (prints JSON)",
    footer = {
      "",
      "  partner create --name N [--email E]     partner list",
      "  partner disable|enable|rotate-secret <id>",
      "  license create --partner ID --name N [--email E] [--expires YYYY-MM-DD]",
      "                 [--allow 203.0.113.5,10.0.0.0/8]",
      "  license list                             license disable|enable <id>",
      "  license expires <id> YYYY-MM-DD|never    (renews or ends a license)",
      "  license rotate-code|rotate-push-key <id>   (shows the new one once)",
      "  device create --license ID --number N [--driver NAME] [--set key=value ...]",
      "  device set <id> --set key=value [...]    (its driver configuration;",
      "                                           an empty value removes a key)",
      "  device list                              device disable|enable|delete <id>",
      "  device show <id>     (its state, webhook URLs and their signing secret)",
      "  device rotate <id> [key|device-key|crm-id]   (default: key)",
      "  device qr <id> [--url http://127.0.0.1:8080] [--token <admin.token>]",
      "      the pairing QR code of a running gateway, until it is scanned",
      "  device link-code <id> [--url …] [--token …]",
      "      a code to type on the device's phone instead (drivers that have one)",
      "  subscription create --license ID --url U --events E1,E2 [--format standard|meta]",
      "      a webhook subscription of Kurir API v1 (shows its secret once)",
      "  subscription list --license ID           subscription remove --license ID <id>",
      "  webhook list [--state failed|dead|pending|delivered]",
      "  webhook replay <id>",
      "  secrets rotate-key --new-key-file=<file>",
      "      re-encrypt the database's secrets with a new key (stop the gateways first)",
      "",
      "Settings flags choose the database, as for serve: --data.dir=data,",
      "--config=kurir.yml, --database.url=…; --demo: the demo's database.",
      "The database must exist: the gateway creates it on its first start, and",
      "--create creates it before that.",
      "Each command's options:",
      "  ${ROOT-COMMAND-NAME} admin <what> <action> --help"
    })
final class AdminCommand implements Callable<Integer> {
  @Option(
      names = "--demo",
      scope = ScopeType.INHERIT,
      description = "work on the demo's database (data/demo)")
  boolean demo;

  @Option(
      names = "--create",
      scope = ScopeType.INHERIT,
      description =
          "create the database when it does not exist yet (the gateway creates it on its first"
              + " start; without this flag a missing database is an error)")
  boolean create;

  @Spec CommandSpec spec;
  private final Invocation invocation;

  private AdminCommand(Invocation invocation) {
    this.invocation = invocation;
  }

  /** {@code kurir admin} and its commands. */
  static CommandLine commandLine(Invocation invocation) {
    AdminCommand admin = new AdminCommand(invocation);
    CommandLine command = new CommandLine(admin);
    command.addSubcommand("partner", new Partners(admin));
    command.addSubcommand("license", new Licenses(admin));
    command.addSubcommand("device", new Devices(admin));
    command.addSubcommand("key", new Keys(admin));
    command.addSubcommand("subscription", new Subscriptions(admin));
    command.addSubcommand("webhook", new Webhooks(admin));
    command.addSubcommand("secrets", new SecretsKey(admin));
    return command;
  }

  /** {@code kurir admin <args>}, as the tests and {@link Kurir#run} call it. */
  static int run(
      List<String> args, Map<String, String> env, Path workDir, PrintStream out, PrintStream err) {
    List<String> line = new ArrayList<>(List.of("admin"));
    line.addAll(args);
    return Kurir.run(line, env, workDir, out, err);
  }

  /** {@code kurir admin} without a command: what it takes, as a usage error. */
  @Override
  public Integer call() {
    return usage(spec);
  }

  private int usage(CommandSpec command) {
    command.commandLine().usage(invocation.err());
    return UsageErrors.USAGE;
  }

  private Settings settings() {
    return invocation.settings(demo ? Profile.DEMO : Profile.SERVE);
  }

  /** The core services one command works with, on the configured database. */
  private record Core(
      Tenants tenants,
      TenantViews views,
      Timestamps timestamps,
      WebhookDeliveries webhooks,
      DeviceStates states,
      MessageWebhooks messageWebhooks,
      WebhookSubscriptions subscriptions) {}

  /**
   * Runs {@code action} on the database and prints what it answers as JSON (exit 0), or the refusal
   * (exit 1). A database that does not exist yet is not created unless {@code --create}.
   */
  private int onDatabase(Function<Core, Object> action) {
    Settings settings = settings();
    Optional<Path> missing = Database.fileToCreate(settings.database());
    if (missing.isPresent() && !create) {
      invocation.err().println("kurir admin: " + noDatabase(missing.get()));
      return 1;
    }
    try (Database db = openDatabase(settings)) {
      Clock clock = Clock.systemUTC();
      IdGenerator ids = new IdGenerator(clock, settings.nodeId());
      Tenants tenants =
          new Tenants(
              db,
              ids,
              clock,
              settings.zone(),
              new PhoneNumbers(settings.defaultRegion()),
              DeviceDrivers.of(StandardDrivers.catalog()));
      Timestamps timestamps = new Timestamps(settings.zone());
      // What the commands change goes into the event log as a gateway's changes do.
      io.kurir.webhook.Events events =
          new io.kurir.webhook.Events(
              db, ids, clock, settings.webhooks().eventsKeepFor(), () -> {});
      Object result =
          action.apply(
              new Core(
                  tenants,
                  new TenantViews(timestamps),
                  timestamps,
                  new WebhookDeliveries(db, clock),
                  // Read only here (recorded states); nothing to wake.
                  new DeviceStates(db, clock, ids, timestamps, () -> {}, events),
                  // Read only here (the URLs): no events, so no address or port to give them.
                  new MessageWebhooks(db, ids, clock, timestamps, () -> {}, events, "", () -> 0),
                  // A subscription's URL is checked as the gateway checks it.
                  new WebhookSubscriptions(
                      db, ids, clock, new SafeFetcher(settings.media(), clock))));
      invocation.out().println(json(result));
      return 0;
    } catch (TenantException | SubscriptionRefused | IllegalArgumentException e) {
      invocation.err().println("kurir admin: " + e.getMessage());
      return 1;
    }
  }

  /**
   * Re-encrypts every secret of the database with the key in {@code newKeyFile} (made there,
   * readable by its owner only, when it does not exist) and prints the new key's id. Refused while
   * a gateway runs on the database: it holds the old key. On SQLite it holds the lock {@code serve}
   * takes throughout; on PostgreSQL the re-encryption's transaction checks that no node is alive
   * and holds a lock that a starting node waits for. Run again once done, it changes nothing and
   * says so. See docs/operations.md, "The secrets key".
   */
  private int rotateSecretsKey(Path newKeyFile) {
    Settings settings = settings();
    Optional<Path> missing = Database.fileToCreate(settings.database());
    if (missing.isPresent()) {
      invocation.err().println("kurir admin: " + noDatabase(missing.get()));
      return 1;
    }
    Path file = invocation.workDir().resolve(newKeyFile).normalize();
    String option = "--new-key-file";
    try (InstanceLock lock = InstanceLock.forMaintenance(settings.database());
        Database db = Database.open(settings.database())) {
      InstanceLock.refuseWhileRunning(db);
      Optional<byte[]> given = SecretKeys.readFile(file, option);
      Map<String, Object> result = new LinkedHashMap<>();
      if (given.isPresent()) {
        String givenId = SecretBox.of(given.get()).keyId();
        if (StoredSecrets.keyIdsInUse(db).equals(new java.util.TreeSet<>(Set.of(givenId)))) {
          // Run again with the same flags: the settings' key no longer opens the database.
          result.put("keyFile", file.toString());
          result.put("keyId", givenId);
          result.put("reencrypted", 0);
          result.put(
              "next",
              "nothing to do: the rotation already happened, the database is encrypted with this"
                  + " key. Start the gateways with secrets.key-file="
                  + file
                  + " (or KURIR_SECRETS_KEY set to its content)");
          invocation.out().println(json(result));
          return 0;
        }
      }
      SecretBox current =
          SecretKeys.open(
              db,
              new SecretKeys.Source(settings.secrets().keyFile(), settings.secrets().key()),
              message -> invocation.err().println("kurir admin: " + message));
      SecretBox next = SecretBox.of(given.orElseGet(() -> SecretKeys.readOrCreate(file, option)));
      int changed = StoredSecrets.reseal(db, current, next);
      result.put("keyFile", file.toString());
      result.put("keyId", next.keyId());
      result.put("previousKeyId", current.keyId());
      result.put("reencrypted", changed);
      result.put(
          "next",
          "the old key no longer opens the database: start the gateways with secrets.key-file="
              + file
              + " (or move it to where secrets.key-file points, or set KURIR_SECRETS_KEY to its"
              + " content), then destroy the old key and its copies");
      invocation.out().println(json(result));
      return 0;
    } catch (IllegalArgumentException | IllegalStateException e) {
      invocation.err().println("kurir admin: " + e.getMessage());
      return 1;
    }
  }

  /** The configured database, with its secrets key (as the gateway opens it). */
  private Database openDatabase(Settings settings) {
    return Database.open(
        settings.database(),
        new SecretKeys.Source(settings.secrets().keyFile(), settings.secrets().key()),
        message -> invocation.err().println("kurir admin: " + message));
  }

  private String noDatabase(Path file) {
    if (demo) {
      return "there is no demo database at "
          + file
          + ": run "
          + spec.root().name()
          + " demo once (it creates it, with the demo account), or add --create";
    }
    String demoHint = demoDatabaseExists() ? " (The demo's database is there: add --demo.)" : "";
    return "there is no database at "
        + file
        + ". The gateway creates it when it first starts ("
        + spec.root().name()
        + " serve, with the same settings):"
        + " start it once, or add --create to create it now. If it should be elsewhere, give"
        + " --data.dir, --config or --database.url as the gateway has them."
        + demoHint;
  }

  /** Whether {@code kurir demo} has run here: a newcomer's first admin command often means it. */
  private boolean demoDatabaseExists() {
    try {
      return Database.fileToCreate(invocation.settings(Profile.DEMO).database()).isEmpty();
    } catch (RuntimeException e) { // settings that only the demo refuses: no hint, not a failure
      return false;
    }
  }

  private static Map<String, String> done(Runnable action) {
    action.run();
    return Map.of("status", "ok");
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

  /** An id on the command line: digits. */
  static final class Id implements CommandLine.ITypeConverter<Long> {
    @Override
    public Long convert(String raw) {
      try {
        return Long.parseLong(raw.strip());
      } catch (NumberFormatException e) {
        throw new CommandLine.TypeConversionException("'" + raw + "' is not an id (digits)");
      }
    }
  }

  /** A day written {@code YYYY-MM-DD}. */
  static final class Day implements CommandLine.ITypeConverter<LocalDate> {
    @Override
    public LocalDate convert(String raw) {
      try {
        return LocalDate.parse(raw.strip());
      } catch (DateTimeParseException e) {
        throw new CommandLine.TypeConversionException("'" + raw + "' is not a date YYYY-MM-DD");
      }
    }
  }

  /** The last day of a license, or {@code never}. */
  record Expiry(LocalDate day) {
    static final class Converter implements CommandLine.ITypeConverter<Expiry> {
      @Override
      public Expiry convert(String raw) {
        return new Expiry(raw.strip().equalsIgnoreCase("never") ? null : new Day().convert(raw));
      }
    }
  }

  /** The states {@code webhook list --state} takes (the names the Admin API uses). */
  enum DeliveryState {
    failed,
    dead,
    pending,
    delivered
  }

  /** A device's credentials that {@code device rotate} replaces. */
  static final class Credentials extends ArrayList<String> {
    Credentials() {
      super(List.of("key", "device-key", "crm-id"));
    }
  }

  /** The drivers a device may name, from the catalog (help text, shell completion). */
  static final class DriverNames extends ArrayList<String> {
    DriverNames() {
      super(StandardDrivers.catalog().names());
    }
  }

  /** A command of commands ({@code partner}, {@code device}…): alone, it shows what it takes. */
  abstract static class Group implements Callable<Integer> {
    final AdminCommand admin;
    @Spec CommandSpec spec;

    Group(AdminCommand admin) {
      this.admin = admin;
    }

    @Override
    public Integer call() {
      return admin.usage(spec);
    }
  }

  @Command(name = "secrets", description = "the key that encrypts the secrets in the database")
  static final class SecretsKey extends Group {
    SecretsKey(AdminCommand admin) {
      super(admin);
    }

    @Command(
        name = "rotate-key",
        description =
            "re-encrypt every stored secret with the key in --new-key-file (made there when the"
                + " file does not exist); stop the gateways first, then start them with"
                + " secrets.key-file set to the new file")
    int rotateKey(
        @Option(
                names = "--new-key-file",
                required = true,
                description = "the new key (base64 of 32 bytes); made when missing",
                paramLabel = "FILE")
            Path newKeyFile) {
      return admin.rotateSecretsKey(newKeyFile);
    }
  }

  @Command(name = "partner", description = "resellers who own licenses (Partner API logins)")
  static final class Partners extends Group {
    Partners(AdminCommand admin) {
      super(admin);
    }

    @Command(description = "create a partner (prints it with its Basic credentials)")
    int create(
        @Option(names = "--name", required = true, description = "its name", paramLabel = "NAME")
            String name,
        @Option(names = "--email", description = "its contact address", paramLabel = "EMAIL")
            String email) {
      return admin.onDatabase(c -> c.views().of(c.tenants().createPartner(name, email)));
    }

    @Command(description = "list every partner")
    int list() {
      return admin.onDatabase(c -> c.tenants().partners().stream().map(c.views()::of).toList());
    }

    @Command(description = "stop a partner's Partner API login")
    int disable(@Parameters(paramLabel = "<id>", converter = Id.class) long id) {
      return admin.onDatabase(c -> done(() -> c.tenants().setPartnerDisabled(id, true)));
    }

    @Command(description = "let a partner sign in again")
    int enable(@Parameters(paramLabel = "<id>", converter = Id.class) long id) {
      return admin.onDatabase(c -> done(() -> c.tenants().setPartnerDisabled(id, false)));
    }

    @Command(name = "rotate-secret", description = "give a partner a new Basic secret")
    int rotateSecret(@Parameters(paramLabel = "<id>", converter = Id.class) long id) {
      return admin.onDatabase(c -> c.views().of(c.tenants().rotatePartnerSecret(id)));
    }
  }

  @Command(name = "license", description = "customers: their expiry, addresses and devices")
  static final class Licenses extends Group {
    Licenses(AdminCommand admin) {
      super(admin);
    }

    @Command(description = "create a license for a partner's customer")
    int create(
        @Option(
                names = "--partner",
                required = true,
                converter = Id.class,
                description = "the partner's id",
                paramLabel = "ID")
            long partner,
        @Option(
                names = "--name",
                required = true,
                description = "the customer's name",
                paramLabel = "NAME")
            String name,
        @Option(names = "--email", description = "the customer's address", paramLabel = "EMAIL")
            String email,
        @Option(
                names = "--expires",
                paramLabel = "YYYY-MM-DD",
                converter = Day.class,
                description = "its last day (default: never)")
            LocalDate expires,
        @Option(
                names = {"--allow", "--allowed"},
                paramLabel = "ADDRESSES",
                description =
                    "the only addresses or CIDR ranges (comma-separated) it may call from")
            String allowed) {
      List<String> addresses = allowed == null ? List.of() : Arrays.asList(allowed.split(","));
      return admin.onDatabase(
          c -> c.views().of(c.tenants().createLicense(partner, name, email, expires, addresses)));
    }

    @Command(description = "list every license")
    int list() {
      return admin.onDatabase(c -> c.tenants().licenses().stream().map(c.views()::of).toList());
    }

    @Command(description = "stop every device of a license")
    int disable(@Parameters(paramLabel = "<id>", converter = Id.class) long id) {
      return admin.onDatabase(c -> done(() -> c.tenants().setLicenseDisabled(id, true)));
    }

    @Command(description = "let a license's devices work again")
    int enable(@Parameters(paramLabel = "<id>", converter = Id.class) long id) {
      return admin.onDatabase(c -> done(() -> c.tenants().setLicenseDisabled(id, false)));
    }

    @Command(description = "renew or end a license: its last day, or never")
    int expires(
        @Parameters(index = "0", paramLabel = "<id>", converter = Id.class) long id,
        @Parameters(
                index = "1",
                paramLabel = "YYYY-MM-DD|never",
                converter = Expiry.Converter.class)
            Expiry expiry) {
      return admin.onDatabase(c -> c.views().of(c.tenants().setLicenseExpiry(id, expiry.day())));
    }

    @Command(
        name = "rotate-code",
        description =
            "give a license a new code (the old one stops working; shown here once: a lost code"
                + " cannot be read back, only replaced)")
    int rotateCode(@Parameters(paramLabel = "<id>", converter = Id.class) long id) {
      return admin.onDatabase(c -> c.views().of(c.tenants().rotateLicenseCode(id)));
    }

    @Command(name = "rotate-push-key", description = "give a license a new push key")
    int rotatePushKey(@Parameters(paramLabel = "<id>", converter = Id.class) long id) {
      return admin.onDatabase(c -> c.views().of(c.tenants().rotatePushKey(id)));
    }
  }

  @Command(
      name = "key",
      description = "a license's API keys for Kurir API v1 (/v1): create, list, revoke")
  static final class Keys extends Group {
    Keys(AdminCommand admin) {
      super(admin);
    }

    @Command(description = "make an API key (shown here once: only its hash is kept)")
    int create(
        @Option(
                names = "--license",
                required = true,
                converter = Id.class,
                description = "the license's id",
                paramLabel = "ID")
            long license,
        @Option(
                names = "--name",
                required = true,
                description = "what the key is for",
                paramLabel = "NAME")
            String name,
        @Option(
                names = "--scopes",
                required = true,
                description = "comma-separated: send, read, webhooks, contacts, campaigns",
                paramLabel = "SCOPES")
            String scopes) {
      return admin.onDatabase(
          c ->
              AdminRoutes.apiKey(
                  c.tenants().apiKeys().create(license, name, ApiScope.parse(scopes))));
    }

    @Command(description = "list a license's API keys (not the keys themselves)")
    int list(
        @Option(
                names = "--license",
                required = true,
                converter = Id.class,
                description = "the license's id",
                paramLabel = "ID")
            long license) {
      return admin.onDatabase(
          c -> c.tenants().apiKeys().of(license).stream().map(AdminRoutes::apiKey).toList());
    }

    @Command(description = "revoke an API key: it stops working at once")
    int revoke(
        @Option(
                names = "--license",
                required = true,
                converter = Id.class,
                description = "the license's id",
                paramLabel = "ID")
            long license,
        @Parameters(paramLabel = "<key id>", converter = Id.class) long keyId) {
      return admin.onDatabase(c -> done(() -> c.tenants().apiKeys().revoke(license, keyId)));
    }
  }

  @Command(name = "device", description = "linked numbers: credentials, driver, pairing")
  static final class Devices extends Group {
    Devices(AdminCommand admin) {
      super(admin);
    }

    @Command(description = "create a device of a license (prints it with its Eco key)")
    int create(
        @Option(
                names = "--license",
                required = true,
                converter = Id.class,
                description = "the license's id",
                paramLabel = "ID")
            long license,
        @Option(
                names = "--number",
                required = true,
                description = "its phone number",
                paramLabel = "NUMBER")
            String number,
        @Option(
                names = "--driver",
                completionCandidates = DriverNames.class,
                description = "one of ${COMPLETION-CANDIDATES} (default: the first)",
                paramLabel = "NAME")
            String driver,
        @Option(
                names = "--set",
                paramLabel = "key=value",
                description = "a key of its driver configuration (repeatable)")
            List<String> set) {
      Map<String, String> config = configuration(set);
      return admin.onDatabase(
          c ->
              c.views().of(c.tenants().createDevice(license, number, driver, config), c.tenants()));
    }

    @Command(description = "change a device's driver configuration (an empty value removes a key)")
    int set(
        @Parameters(paramLabel = "<id>", converter = Id.class) long id,
        @Option(
                names = "--set",
                paramLabel = "key=value",
                description = "a key of its driver configuration (repeatable)")
            List<String> set) {
      Map<String, String> config = configuration(set);
      return admin.onDatabase(
          c -> {
            if (config.isEmpty()) {
              throw new IllegalArgumentException("device set <id> needs --set key=value");
            }
            return c.views().of(c.tenants().configureDevice(id, config), c.tenants());
          });
    }

    @Command(description = "list every device with its recorded state")
    int list() {
      return admin.onDatabase(c -> AdminRoutes.devices(c.tenants(), c.views(), c.states().all()));
    }

    @Command(
        description =
            "show a device with its recorded state, its webhook URLs and their signing secret")
    int show(@Parameters(paramLabel = "<id>", converter = Id.class) long id) {
      return admin.onDatabase(
          c ->
              AdminRoutes.device(
                  c.tenants(),
                  c.views(),
                  c.tenants().device(id),
                  c.states().current(id).wireName(),
                  c.messageWebhooks().urls(id),
                  c.states().statusWebhook(id)));
    }

    @Command(description = "stop a device: its key answers key_disabled")
    int disable(@Parameters(paramLabel = "<id>", converter = Id.class) long id) {
      return admin.onDatabase(c -> done(() -> c.tenants().setDeviceDisabled(id, true)));
    }

    @Command(
        description =
            "delete a device: its keys stop working, its queue ends failed (device_deleted),"
                + " its history stays; prints the device as it was")
    int delete(@Parameters(paramLabel = "<id>", converter = Id.class) long id) {
      return admin.onDatabase(c -> c.views().of(c.tenants().deleteDevice(id), c.tenants()));
    }

    @Command(description = "let a device work again")
    int enable(@Parameters(paramLabel = "<id>", converter = Id.class) long id) {
      return admin.onDatabase(c -> done(() -> c.tenants().setDeviceDisabled(id, false)));
    }

    @Command(description = "give a device a new credential; the old one stops working")
    int rotate(
        @Parameters(index = "0", paramLabel = "<id>", converter = Id.class) long id,
        @Parameters(
                index = "1",
                arity = "0..1",
                paramLabel = "key|device-key|crm-id",
                completionCandidates = Credentials.class,
                defaultValue = "key")
            String credential) {
      return admin.onDatabase(
          c -> c.views().of(c.tenants().rotate(id, Credential.parse(credential))));
    }

    @Command(
        description = "show the pairing QR code of a running gateway and wait until it is scanned")
    int qr(
        @Parameters(paramLabel = "<id>") String id,
        @Option(
                names = "--url",
                description = "the gateway (default http://127.0.0.1:<server.port>)",
                paramLabel = "URL")
            String url,
        @Option(
                names = "--token",
                description = "its admin token (default: admin.token)",
                paramLabel = "TOKEN")
            String token) {
      return PairingQr.show(
          List.of("device", "qr", id),
          gateway(url, token),
          admin.settings(),
          admin.invocation.out(),
          admin.invocation.err());
    }

    @Command(
        name = "link-code",
        description = "a code to type on the device's phone instead of scanning (waha)")
    int linkCode(
        @Parameters(paramLabel = "<id>") String id,
        @Option(
                names = "--url",
                description = "the gateway (default http://127.0.0.1:<server.port>)",
                paramLabel = "URL")
            String url,
        @Option(
                names = "--token",
                description = "its admin token (default: admin.token)",
                paramLabel = "TOKEN")
            String token) {
      return PairingQr.linkCode(
          List.of("device", "link-code", id),
          gateway(url, token),
          admin.settings(),
          admin.invocation.out(),
          admin.invocation.err());
    }

    @Command(
        description =
            "resume a device whose queue is held because its network refused the account (a"
                + " running gateway's)")
    int retry(
        @Parameters(paramLabel = "<id>") String id,
        @Option(
                names = "--url",
                description = "the gateway (default http://127.0.0.1:<server.port>)",
                paramLabel = "URL")
            String url,
        @Option(
                names = "--token",
                description = "its admin token (default: admin.token)",
                paramLabel = "TOKEN")
            String token) {
      return PairingQr.retry(
          List.of("device", "retry", id),
          gateway(url, token),
          admin.settings(),
          admin.invocation.out(),
          admin.invocation.err());
    }

    private static Map<String, String> gateway(String url, String token) {
      Map<String, String> options = new LinkedHashMap<>();
      if (url != null) {
        options.put("url", url);
      }
      if (token != null) {
        options.put("token", token);
      }
      return options;
    }

    /** The {@code --set key=value} pairs, in order; a pair without a key is a usage error. */
    private Map<String, String> configuration(List<String> pairs) {
      Map<String, String> config = new LinkedHashMap<>();
      for (String pair : pairs == null ? List.<String>of() : pairs) {
        int eq = pair.indexOf('=');
        if (eq <= 0 || pair.substring(0, eq).isBlank()) {
          throw new CommandLine.ParameterException(
              spec.commandLine(), "--set needs key=value, as in --set access-token=...");
        }
        config.put(pair.substring(0, eq).strip(), pair.substring(eq + 1));
      }
      return config;
    }
  }

  @Command(
      name = "subscription",
      description =
          "a license's webhook subscriptions of Kurir API v1 (/v1/webhooks): create, list, remove")
  static final class Subscriptions extends Group {
    Subscriptions(AdminCommand admin) {
      super(admin);
    }

    @Command(description = "subscribe a URL to event types (its secret is shown here once)")
    int create(
        @Option(
                names = "--license",
                required = true,
                converter = Id.class,
                description = "the license's id",
                paramLabel = "ID")
            long license,
        @Option(names = "--url", required = true, description = "the receiver", paramLabel = "URL")
            String url,
        @Option(
                names = "--events",
                required = true,
                description = "comma-separated: message.received, message.status, device.status",
                paramLabel = "EVENTS")
            String events,
        @Option(
                names = "--format",
                defaultValue = "standard",
                description =
                    "standard (Kurir's events, Standard Webhooks signature) or meta (the Cloud"
                        + " API's webhooks, X-Hub-Signature-256)",
                paramLabel = "FORMAT")
            String format) {
      return admin.onDatabase(
          c ->
              V1WebhookHandlers.created(
                  c.subscriptions()
                      .create(
                          license,
                          url,
                          List.of(events.split(",")),
                          WebhookSubscriptions.format(format))));
    }

    @Command(description = "list a license's subscriptions (not their secrets)")
    int list(
        @Option(
                names = "--license",
                required = true,
                converter = Id.class,
                description = "the license's id",
                paramLabel = "ID")
            long license) {
      return admin.onDatabase(
          c -> c.subscriptions().of(license).stream().map(V1WebhookHandlers::view).toList());
    }

    @Command(description = "remove a subscription: what still waited for it ends as failed")
    int remove(
        @Option(
                names = "--license",
                required = true,
                converter = Id.class,
                description = "the license's id",
                paramLabel = "ID")
            long license,
        @Parameters(paramLabel = "<id>", converter = Id.class) long id) {
      return admin.onDatabase(c -> done(() -> c.subscriptions().remove(license, id)));
    }
  }

  @Command(name = "webhook", description = "webhook deliveries: list, replay")
  static final class Webhooks extends Group {
    Webhooks(AdminCommand admin) {
      super(admin);
    }

    @Command(description = "deliveries in one state, newest first (at most 500)")
    int list(
        @Option(
                names = "--state",
                defaultValue = "failed",
                description = "failed, dead, pending or delivered (default: failed)",
                paramLabel = "STATE")
            DeliveryState state) {
      return admin.onDatabase(
          c ->
              c.webhooks().list(state.name()).stream()
                  .map(d -> AdminRoutes.view(d, c.timestamps()))
                  .toList());
    }

    @Command(description = "send a failed or dead delivery again")
    int replay(@Parameters(paramLabel = "<id>", converter = Id.class) long id) {
      return admin.onDatabase(
          c -> {
            if (!c.webhooks().replay(id)) {
              throw new IllegalArgumentException("no failed or dead delivery " + id);
            }
            return Map.of("status", "ok");
          });
    }
  }
}
