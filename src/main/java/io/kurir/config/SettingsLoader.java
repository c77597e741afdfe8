package io.kurir.config;

import io.kurir.driver.DriverCatalog;
import io.kurir.driver.DriverSettings;
import io.kurir.driver.standard.StandardDrivers;
import io.kurir.store.DatabaseLocation;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * Builds {@link Settings} from, in order of precedence: command-line flags ({@code
 * --server.port=9000}), {@code KURIR_*} environment variables ({@code KURIR_SERVER_PORT}), the YAML
 * file ({@code kurir.yml}, or the one named by {@code --config} / {@code KURIR_CONFIG}), and the
 * named defaults below. Every value is checked here, so a bad one stops start-up with a message
 * that names the setting and says what is wrong.
 */
public final class SettingsLoader {

  /** Which defaults apply: {@code serve} for production, {@code demo} for trying Kurir out. */
  public enum Profile {
    SERVE,
    DEMO
  }

  private record Definition(String key, String serveDefault, String demoDefault) {}

  // Keep in sync with kurir.example.yml and the README's configuration section.
  /** The push v1 application id of an installation that does not choose its own. */
  static final String PUSH_APP_ID = "6b757269-7200-4000-8000-707573680001";

  /**
   * The app id that every OneSignal-shaped sender in public code hard-codes ("don't change"), so
   * that those senders work unchanged when pointed at Kurir.
   */
  static final String PUBLIC_CLIENTS_PUSH_APP_ID = "429d3472-da0f-4b2b-a63e-4644050caf8f";

  private static final String PUSH_APP_IDS = PUSH_APP_ID + "," + PUBLIC_CLIENTS_PUSH_APP_ID;

  private static final List<Definition> DEFINITIONS =
      List.of(
          new Definition("server.host", "0.0.0.0", "127.0.0.1"),
          new Definition("server.port", "8080", "8080"),
          new Definition("data.dir", "data", "data/demo"),
          new Definition("database.url", "", ""),
          new Definition("database.user", "", ""),
          new Definition("database.password", "", ""),
          new Definition("admin.token", "", "demo-admin-token"),
          new Definition("time.zone", "Asia/Jakarta", "Asia/Jakarta"),
          new Definition("phone.default-region", "ID", "ID"),
          new Definition("node.id", "0", "0"),
          new Definition("send.sync-timeout", "10s", "10s"),
          new Definition("send.retry-backoff", "30s", "5s"),
          new Definition("send.max-retries", "3", "3"),
          new Definition("http.max-body", "16MB", "16MB"),
          new Definition("media.max-size", "5MB", "5MB"),
          // The demo runs on loopback for one person: their own receiver on localhost is fine.
          new Definition("media.allow-private-addresses", "false", "true"),
          new Definition("media.fetch-timeout", "15s", "15s"),
          new Definition("media.upload-quota", "200MB", "200MB"),
          new Definition("media.keep-for", "30d", "30d"),
          new Definition("webhook.retry-for", "24h", "24h"),
          new Definition("webhook.timeout", "10s", "10s"),
          new Definition("webhook.secret-overlap", "24h", "24h"),
          new Definition("webhook.events-keep-for", "7d", "7d"),
          new Definition("http.trusted-proxies", "", ""),
          // Slow clients: one deadline over a whole request, a bound on sockets per peer address.
          new Definition("http.request-deadline", "30s", "30s"),
          new Definition("http.max-connections-per-address", "100", "100"),
          new Definition("push.app-ids", PUSH_APP_IDS, PUSH_APP_IDS),
          new Definition("public.url", "", ""),
          new Definition("public.callback-url", "", ""),
          new Definition("bots.answer-in-groups", "false", "false"),
          // Indonesian customers write BERHENTI as often as STOP; both are careful defaults.
          new Definition("contacts.opt-out-words", "STOP,BERHENTI", "STOP,BERHENTI"),
          // The safe-sending policy of campaigns: docs/decisions.md, "Safe sending", says why.
          new Definition("campaigns.safe-sending.warm-up-start", "20", "20"),
          new Definition("campaigns.safe-sending.warm-up-growth", "50", "50"),
          new Definition("campaigns.safe-sending.daily-cap", "500", "500"),
          new Definition("campaigns.safe-sending.gap-min", "10s", "10s"),
          new Definition("campaigns.safe-sending.gap-max", "30s", "30s"),
          new Definition("campaigns.safe-sending.unanswered-window", "30", "30"),
          new Definition("campaigns.safe-sending.unanswered-max", "90", "90"),
          new Definition("campaigns.safe-sending.answer-time", "30m", "30m"),
          new Definition("campaigns.safe-sending.unanswered-hold", "1h", "1h"),
          // Generous: they stop floods, not customers; the gateway's own machine is exempt.
          new Definition("limits.per-key", "100/s", "100/s"),
          new Definition("limits.per-key-burst", "2000", "2000"),
          new Definition("limits.per-address", "200/s", "200/s"),
          new Definition("limits.per-address-burst", "4000", "4000"),
          new Definition("limits.exempt", "127.0.0.0/8,::1", "127.0.0.0/8,::1"),
          new Definition("server.tls.cert", "", ""),
          new Definition("server.tls.key", "", ""),
          new Definition("server.tls.keystore", "", ""),
          new Definition("server.tls.keystore-password", "", ""),
          new Definition("server.tls.redirect-port", "0", "0"),
          new Definition("metrics.access", "admin", "admin"),
          new Definition("metrics.port", "9464", "9464"),
          new Definition("metrics.gauges-fresh-for", "5s", "5s"),
          new Definition("log.format", "text", "text"),
          new Definition("log.level", "info", "info"),
          // Secrets at rest (issue 25 item 12): the key that encrypts stored secrets.
          new Definition("secrets.key-file", "", ""),
          new Definition("secrets.key", "", ""));

  /** Every driver's settings section, {@code drivers.<driver>.<key>}, comes from its factory. */
  private static final DriverCatalog CATALOG = StandardDrivers.catalog();

  /** The settings of this version: the table above and every driver's section. */
  private static final List<Definition> ALL = allDefinitions();

  /** Old names of settings that moved, to their names now. */
  private static final Map<String, String> ALIASES = aliases();

  private static List<Definition> allDefinitions() {
    List<Definition> all = new ArrayList<>(DEFINITIONS);
    for (var q : CATALOG.settings()) {
      all.add(new Definition(q.fullKey(), q.setting().serveDefault(), q.setting().demoDefault()));
    }
    return List.copyOf(all);
  }

  /** Each setting whose {@code ./kurir demo} default differs from serve's, with that default. */
  static Map<String, String> demoDefaultsThatDiffer() {
    Map<String, String> differ = new LinkedHashMap<>();
    for (Definition d : allDefinitions()) {
      if (!d.serveDefault().equals(d.demoDefault())) {
        differ.put(d.key(), d.demoDefault());
      }
    }
    return differ;
  }

  private static Map<String, String> aliases() {
    Map<String, String> aliases = new LinkedHashMap<>();
    // The single id came first; as an alias it sets the whole list (only that id is accepted).
    aliases.put("push.app-id", "push.app-ids");
    for (var q : CATALOG.settings()) {
      q.setting().aliases().forEach(a -> aliases.put(a, q.fullKey()));
    }
    return Map.copyOf(aliases);
  }

  private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");
  private static final Duration MAX_DURATION = Duration.ofDays(365);
  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(B|KB|MB|GB)?");

  private SettingsLoader() {}

  /**
   * Loads settings.
   *
   * @param profile which defaults apply
   * @param args command-line flags, {@code --key=value} or {@code --key value}
   * @param env the process environment (only {@code KURIR_*} names are read)
   * @param workDir folder where {@code kurir.yml} is looked for
   */
  public static Settings load(
      Profile profile, List<String> args, Map<String, String> env, Path workDir) {
    Map<String, String> flags = parseFlags(args);
    String configPath = flags.remove("config");
    if (configPath == null) {
      configPath = env.get("KURIR_CONFIG");
    }
    Map<String, String> file = Map.of();
    if (configPath != null) {
      Path path = workDir.resolve(configPath);
      if (!Files.isRegularFile(path)) {
        throw new SettingsException("config: file " + path + " does not exist");
      }
      file = readYaml(path);
    } else if (profile == Profile.SERVE && Files.isRegularFile(workDir.resolve("kurir.yml"))) {
      // The demo runs on its embedded defaults: a production kurir.yml must not point it at the
      // production database (where it would plant the public demo key).
      file = readYaml(workDir.resolve("kurir.yml"));
    }
    Map<String, String> merged = new LinkedHashMap<>();
    for (Definition d : ALL) {
      merged.put(d.key(), profile == Profile.DEMO ? d.demoDefault() : d.serveDefault());
    }
    List<String> problems = new ArrayList<>();
    String fileName = configPath == null ? "kurir.yml" : configPath;
    for (var e : file.entrySet()) {
      putKnown(merged, e.getKey(), e.getValue(), "in " + fileName, problems);
    }
    // The environment has no order: a setting given under both its name and an old one takes the
    // name's value, whichever the process lists first.
    Map<String, String> fromEnv = new LinkedHashMap<>();
    Map<String, String> fromEnvOldNames = new LinkedHashMap<>();
    for (var e : env.entrySet()) {
      if (e.getKey().startsWith("KURIR_") && !e.getKey().equals("KURIR_CONFIG")) {
        String key = keyOfEnv(e.getKey());
        if (key == null) {
          problems.add(
              e.getKey()
                  + ": unknown setting in the environment"
                  + nearest(e.getKey(), ALL.stream().map(d -> envName(d.key())).toList())
                  + "; known: "
                  + knownEnvNames());
        } else {
          (envName(key).equals(e.getKey()) ? fromEnv : fromEnvOldNames).put(key, e.getValue());
        }
      }
    }
    merged.putAll(fromEnvOldNames);
    merged.putAll(fromEnv);
    for (var e : flags.entrySet()) {
      putKnown(merged, e.getKey(), e.getValue(), "given as --" + e.getKey(), problems);
    }
    return build(merged, profile, workDir, problems);
  }

  /** The environment variable that sets {@code key}: {@code server.port} → KURIR_SERVER_PORT. */
  public static String envName(String key) {
    return "KURIR_" + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  private static String keyOfEnv(String envName) {
    for (Definition d : ALL) {
      if (envName(d.key()).equals(envName)) {
        return d.key();
      }
    }
    for (var alias : ALIASES.entrySet()) {
      if (envName(alias.getKey()).equals(envName)) {
        return alias.getValue();
      }
    }
    return null;
  }

  private static void putKnown(
      Map<String, String> merged, String key, String value, String where, List<String> problems) {
    String name = ALIASES.getOrDefault(key, key);
    if (ALL.stream().anyMatch(d -> d.key().equals(name))) {
      merged.put(name, value);
    } else {
      problems.add(
          key
              + ": unknown setting "
              + where
              + nearest(key, ALL.stream().map(Definition::key).toList())
              + "; known: "
              + knownKeys());
    }
  }

  /** " (did you mean X?)" with the known name nearest to {@code typed}, or nothing. */
  private static String nearest(String typed, List<String> known) {
    return NearestName.to(typed, known).map(name -> " (did you mean " + name + "?)").orElse("");
  }

  /**
   * Whether {@code --key} on a command line gives a setting: a key, an old name of one, a shorthand
   * ({@code port}, {@code host}, {@code data}) or {@code config}. The command line passes such
   * flags here and rejects other unknown ones itself.
   */
  public static boolean isFlag(String key) {
    String name = alias(key);
    return name.equals("config")
        || ALIASES.containsKey(name)
        || ALL.stream().anyMatch(d -> d.key().equals(name));
  }

  /** Every name {@link #isFlag} accepts but old ones: to suggest the nearest to a mistyped flag. */
  public static List<String> flagNames() {
    List<String> names = new ArrayList<>(List.of("port", "host", "data", "config"));
    ALL.forEach(d -> names.add(d.key()));
    return List.copyOf(names);
  }

  private static String knownKeys() {
    return String.join(", ", ALL.stream().map(Definition::key).toList());
  }

  private static String knownEnvNames() {
    return String.join(", ", ALL.stream().map(d -> envName(d.key())).toList());
  }

  private static Map<String, String> parseFlags(List<String> args) {
    Map<String, String> flags = new LinkedHashMap<>();
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      if (!arg.startsWith("--") || arg.length() == 2) {
        throw new SettingsException(arg + ": expected a flag such as --server.port=8080");
      }
      String body = arg.substring(2);
      int eq = body.indexOf('=');
      String key;
      String value;
      if (eq >= 0) {
        key = body.substring(0, eq);
        value = body.substring(eq + 1);
      } else if (i + 1 < args.size() && !args.get(i + 1).startsWith("--")) {
        key = body;
        value = args.get(++i);
      } else {
        throw new SettingsException("--" + body + ": needs a value, as in --" + body + "=...");
      }
      flags.put(alias(key), value);
    }
    return flags;
  }

  private static String alias(String key) {
    return switch (key) {
      case "port" -> "server.port";
      case "host" -> "server.host";
      case "data" -> "data.dir";
      default -> key;
    };
  }

  private static Map<String, String> readYaml(Path path) {
    Object root;
    try (Reader reader = Files.newBufferedReader(path)) {
      LoaderOptions options = new LoaderOptions();
      options.setAllowDuplicateKeys(false); // a key written twice is a mistake, not "the last wins"
      root = new Yaml(new SafeConstructor(options)).load(reader);
    } catch (IOException | YAMLException e) {
      throw new SettingsException("config: cannot read " + path + ": " + e.getMessage());
    }
    Map<String, String> flat = new LinkedHashMap<>();
    if (root == null) {
      return flat;
    }
    if (!(root instanceof Map<?, ?> map)) {
      throw new SettingsException("config: " + path + " must be a map of settings");
    }
    flatten("", map, flat);
    return flat;
  }

  private static void flatten(String prefix, Map<?, ?> map, Map<String, String> out) {
    for (var e : map.entrySet()) {
      String key = prefix + e.getKey();
      if (e.getValue() instanceof Map<?, ?> nested) {
        flatten(key + ".", nested, out);
      } else if (e.getValue() instanceof List<?> list) {
        // A YAML list is the comma-separated value a flag or the environment gives.
        out.put(key, String.join(",", list.stream().map(String::valueOf).toList()));
      } else {
        out.put(key, e.getValue() == null ? "" : String.valueOf(e.getValue()));
      }
    }
  }

  private static Settings build(
      Map<String, String> v, Profile profile, Path workDir, List<String> problems) {
    Values r = new Values(v, problems);
    Path dataDir = workDir.resolve(v.get("data.dir")).normalize();
    String databaseUrl = v.get("database.url").trim();
    if (databaseUrl.isEmpty()) {
      databaseUrl = "jdbc:sqlite:" + dataDir.resolve("kurir.db");
    } else if (!databaseUrl.startsWith("jdbc:sqlite:")
        && !databaseUrl.startsWith("jdbc:postgresql://")) {
      problems.add(
          "database.url: '"
              + databaseUrl
              + "' is not supported; Kurir stores data in SQLite (jdbc:sqlite:<file>) or"
              + " PostgreSQL (jdbc:postgresql://<host>[:<port>]/<database>)");
    }
    DatabaseLocation database =
        new DatabaseLocation(
            databaseUrl, v.get("database.user").strip(), v.get("database.password"));
    String host = v.get("server.host").trim();
    if (host.isEmpty()) {
      problems.add("server.host: must not be empty (0.0.0.0 listens on every address)");
    }
    int port = r.integer("server.port", 0, 65535);
    ZoneId zone = r.zone("time.zone");
    String region = v.get("phone.default-region").trim().toUpperCase(Locale.ROOT);
    if (!region.matches("[A-Z]{2}")) {
      problems.add("phone.default-region: '" + region + "' is not a two-letter region such as ID");
    }
    int nodeId = r.integer("node.id", 0, 15);
    Duration syncTimeout = r.duration("send.sync-timeout");
    if (syncTimeout.compareTo(Duration.ofMillis(100)) < 0
        || syncTimeout.compareTo(Duration.ofSeconds(14)) > 0) {
      problems.add("send.sync-timeout: must be between 100ms and 14s; clients give up after 15 s");
    }
    Duration retryBackoff = r.duration("send.retry-backoff");
    int maxRetries = r.integer("send.max-retries", 0, 20);
    long maxBody = r.size("http.max-body");
    Settings.Media media =
        new Settings.Media(
            r.size("media.max-size"),
            r.bool("media.allow-private-addresses"),
            r.duration("media.fetch-timeout"),
            r.size("media.upload-quota"),
            r.duration("media.keep-for"));
    List<String> trustedProxies = r.addressRanges("http.trusted-proxies");
    Settings.Webhooks webhooks =
        new Settings.Webhooks(
            r.duration("webhook.retry-for"),
            r.duration("webhook.timeout"),
            r.duration("webhook.secret-overlap"),
            r.duration("webhook.events-keep-for"));
    List<String> pushAppIds = new ArrayList<>();
    for (String id : v.get("push.app-ids").split(",")) {
      if (!id.isBlank() && !pushAppIds.contains(id.strip())) {
        pushAppIds.add(id.strip());
      }
    }
    if (pushAppIds.isEmpty()) {
      problems.add("push.app-ids: must name at least one app id");
    }
    List<String> optOutWords = new ArrayList<>();
    for (String word : v.get("contacts.opt-out-words").split(",")) {
      if (word.strip().length() > 32 || word.strip().contains(" ")) {
        problems.add(
            "contacts.opt-out-words: '" + word.strip() + "' is not one word of at most 32 letters");
      } else if (!word.isBlank() && !optOutWords.contains(word.strip())) {
        optOutWords.add(word.strip());
      }
    }
    io.kurir.campaign.SafeSending safeSending = safeSending(r, problems);
    String publicUrl = v.get("public.url").strip();
    if (!publicUrl.isEmpty() && !publicUrl.matches("(?i)https?://[^/\\s]+(/\\S*)?")) {
      problems.add(
          "public.url: '"
              + publicUrl
              + "' is not an http(s) address such as https://kurir.example.com");
    }
    // Where an engine in another container calls the gateway back is seldom its public address
    // (http://kurir:8080 on a compose network), so it has a setting of its own; empty: public.url.
    String callbackUrl = v.get("public.callback-url").strip();
    if (!callbackUrl.isEmpty() && !callbackUrl.matches("(?i)https?://[^/\\s]+(/\\S*)?")) {
      problems.add(
          "public.callback-url: '"
              + callbackUrl
              + "' is not an http(s) address such as http://kurir:8080");
    }
    String adminToken = v.get("admin.token").trim();
    if (!adminToken.isEmpty() && adminToken.length() < 16) {
      problems.add(
          "admin.token: must be at least 16 characters long (or empty to turn the Admin API off)");
    }
    Map<String, DriverSettings> drivers = driverSections(r, profile, !adminToken.isEmpty());
    Settings.Limits limits =
        new Settings.Limits(
            r.rate("limits.per-key", "limits.per-key-burst"),
            r.rate("limits.per-address", "limits.per-address-burst"),
            r.addressRanges("limits.exempt"));
    Settings.Tls tls = tls(r, workDir, port);
    Settings.Metrics metrics =
        new Settings.Metrics(
            r.oneOf("metrics.access", Settings.MetricsAccess.class),
            r.integer("metrics.port", 1, 65535),
            r.duration("metrics.gauges-fresh-for"));
    if (metrics.access() == Settings.MetricsAccess.PORT && metrics.port() == port) {
      problems.add("metrics.port: " + port + " is server.port; metrics need a port of their own");
    }
    Settings.Logs logs =
        new Settings.Logs(
            r.word("log.format", List.of("text", "json")),
            r.word("log.level", List.of("trace", "debug", "info", "warn", "error", "off")));
    int problemsBefore = problems.size();
    Duration requestDeadline = r.duration("http.request-deadline");
    if (problems.size() == problemsBefore // not a duration at all: said once is enough
        && (requestDeadline.compareTo(Duration.ofMillis(100)) < 0
            || requestDeadline.compareTo(Duration.ofHours(1)) > 0)) {
      problems.add("http.request-deadline: must be between 100ms and 1h");
    }
    Settings.Edge edge =
        new Settings.Edge(
            requestDeadline, r.integer("http.max-connections-per-address", 0, 100_000));
    Settings.Secrets secrets = secrets(v, workDir, dataDir, problems);
    if (!problems.isEmpty()) {
      throw new SettingsException(String.join("\n", problems));
    }
    return new Settings(
        host,
        port,
        dataDir,
        database,
        adminToken,
        zone,
        region,
        nodeId,
        syncTimeout,
        retryBackoff,
        maxRetries,
        maxBody,
        drivers,
        profile == Profile.DEMO,
        media,
        webhooks,
        trustedProxies,
        List.copyOf(pushAppIds),
        publicUrl.replaceAll("/+$", ""),
        callbackUrl.replaceAll("/+$", ""),
        new Settings.Bots(r.bool("bots.answer-in-groups")),
        new Settings.Contacts(optOutWords),
        safeSending,
        limits,
        tls,
        metrics,
        logs,
        edge,
        secrets);
  }

  /** {@code campaigns.safe-sending.*}; the defaults when a value is refused (said in problems). */
  private static io.kurir.campaign.SafeSending safeSending(Values r, List<String> problems) {
    String k = "campaigns.safe-sending.";
    int before = problems.size();
    Duration gapMin = r.duration(k + "gap-min");
    Duration gapMax = r.duration(k + "gap-max");
    if (problems.size() == before && gapMax.compareTo(gapMin) < 0) {
      problems.add(k + "gap-max: " + gapMax + " is shorter than " + k + "gap-min");
    }
    int start = r.integer(k + "warm-up-start", 0, 1_000_000);
    int growth = r.integer(k + "warm-up-growth", 0, 1_000);
    int cap = r.integer(k + "daily-cap", 0, 10_000_000);
    int window = r.integer(k + "unanswered-window", 1, 10_000);
    int max = r.integer(k + "unanswered-max", 0, 100);
    Duration answerTime = r.duration(k + "answer-time");
    Duration hold = r.duration(k + "unanswered-hold");
    if (problems.size() > before) {
      return io.kurir.campaign.SafeSending.DEFAULT; // the problems stop the start
    }
    return new io.kurir.campaign.SafeSending(
        start, growth, cap, gapMin, gapMax, window, max, answerTime, hold);
  }

  /**
   * Where the key of stored secrets comes from: {@code secrets.key} itself (base64 of 32 bytes,
   * usually as {@code KURIR_SECRETS_KEY}), else the file {@code secrets.key-file} (default {@code
   * <data.dir>/secret.key}). The file is read when the database is opened.
   */
  private static Settings.Secrets secrets(
      Map<String, String> v, Path workDir, Path dataDir, List<String> problems) {
    String file = v.get("secrets.key-file").strip();
    Path keyFile =
        file.isEmpty() ? dataDir.resolve("secret.key") : workDir.resolve(file).normalize();
    String key = v.get("secrets.key").strip();
    if (!key.isEmpty()) {
      try {
        if (java.util.Base64.getDecoder().decode(key).length != 32) {
          problems.add(
              "secrets.key: must be 32 bytes in base64 (44 characters), as `openssl rand -base64 32` writes");
        }
      } catch (IllegalArgumentException e) {
        problems.add("secrets.key: is not base64; make one with `openssl rand -base64 32`");
      }
    }
    return new Settings.Secrets(keyFile, key);
  }

  /**
   * The HTTPS certificate settings, checked for consistency; the files themselves are read when the
   * gateway starts, which names the setting of a file it cannot use.
   */
  private static Settings.Tls tls(Values r, Path workDir, int port) {
    java.util.function.Function<String, java.util.Optional<Path>> file =
        key -> {
          String raw = r.values().get(key).strip();
          return raw.isEmpty()
              ? java.util.Optional.empty()
              : java.util.Optional.of(workDir.resolve(raw).normalize());
        };
    var cert = file.apply("server.tls.cert");
    var key = file.apply("server.tls.key");
    var keystore = file.apply("server.tls.keystore");
    if (cert.isPresent() != key.isPresent()) {
      r.problems()
          .add(
              (cert.isPresent() ? "server.tls.key" : "server.tls.cert")
                  + ": set server.tls.cert and server.tls.key together (PEM files)");
    }
    if (keystore.isPresent() && (cert.isPresent() || key.isPresent())) {
      r.problems()
          .add(
              "server.tls.keystore: set either server.tls.cert and server.tls.key, or"
                  + " server.tls.keystore, not both");
    }
    int redirectPort = r.integer("server.tls.redirect-port", 0, 65535);
    Settings.Tls tls =
        new Settings.Tls(
            cert, key, keystore, r.values().get("server.tls.keystore-password"), redirectPort);
    if (redirectPort != 0 && !tls.isOn()) {
      r.problems()
          .add(
              "server.tls.redirect-port: redirects to https://, so it needs server.tls.cert and"
                  + " server.tls.key (or server.tls.keystore)");
    } else if (redirectPort != 0 && redirectPort == port) {
      r.problems().add("server.tls.redirect-port: must differ from server.port (" + port + ")");
    }
    return tls;
  }

  /**
   * Every driver's section, each value checked by its kind, then by its driver (one setting that
   * needs another); problems name the full key.
   */
  private static Map<String, DriverSettings> driverSections(
      Values r, Profile profile, boolean adminTokenSet) {
    Map<String, DriverSettings> sections = new LinkedHashMap<>();
    for (var f : CATALOG.factories()) {
      Map<String, String> values = new LinkedHashMap<>();
      for (var s : f.settings()) {
        String fullKey = "drivers." + f.name() + "." + s.key();
        switch (s.kind()) {
          case DURATION -> r.duration(fullKey);
          case BOOLEAN -> r.bool(fullKey);
          case COUNT -> r.integer(fullKey, 0, Integer.MAX_VALUE);
          case TEXT -> {}
        }
        values.put(s.key(), r.values().get(fullKey).trim());
      }
      for (String problem : io.kurir.driver.Pacing.outOfRange(values)) {
        r.problems().add("drivers." + f.name() + "." + problem);
      }
      DriverSettings section = new DriverSettings(f.name(), values);
      sections.put(f.name(), section);
      try {
        r.problems().addAll(f.checkSettings(section, profile == Profile.DEMO, adminTokenSet));
      } catch (java.util.NoSuchElementException e) {
        // The check read a value that does not parse: that problem is reported already.
      }
    }
    return Map.copyOf(sections);
  }

  /** Parses one value at a time and collects every problem, so one start-up shows them all. */
  private record Values(Map<String, String> values, List<String> problems) {

    int integer(String key, int min, int max) {
      String raw = values.get(key).trim();
      try {
        int value = Integer.parseInt(raw);
        if (value < min || value > max) {
          problems.add(key + ": " + value + " is outside " + min + ".." + max);
        }
        return value;
      } catch (NumberFormatException e) {
        problems.add(key + ": '" + raw + "' is not a whole number");
        return min;
      }
    }

    /** One of {@code allowed}, lower-case. */
    String word(String key, List<String> allowed) {
      String raw = values.get(key).trim().toLowerCase(Locale.ROOT);
      if (!allowed.contains(raw)) {
        problems.add(key + ": '" + raw + "' is not one of " + String.join(", ", allowed));
        return allowed.get(0);
      }
      return raw;
    }

    /** A constant of {@code type}, written in lower case ({@code off} for {@code OFF}). */
    <E extends Enum<E>> E oneOf(String key, Class<E> type) {
      List<String> names =
          java.util.Arrays.stream(type.getEnumConstants())
              .map(c -> c.name().toLowerCase(Locale.ROOT))
              .toList();
      return Enum.valueOf(type, word(key, names).toUpperCase(Locale.ROOT));
    }

    boolean bool(String key) {
      String raw = values.get(key).trim().toLowerCase(Locale.ROOT);
      return switch (raw) {
        case "true", "yes", "on", "1" -> true;
        case "false", "no", "off", "0" -> false;
        default -> {
          problems.add(key + ": '" + raw + "' is not true or false");
          yield false;
        }
      };
    }

    Duration duration(String key) {
      String raw = values.get(key).trim();
      Matcher m = DURATION.matcher(raw);
      if (!m.matches()) {
        problems.add(key + ": '" + raw + "' is not a duration such as 500ms, 2s, 5m, 1h or 30d");
        return Duration.ZERO;
      }
      try {
        long n = Long.parseLong(m.group(1));
        Duration d =
            switch (m.group(2)) {
              case "ms" -> Duration.ofMillis(n);
              case "s" -> Duration.ofSeconds(n);
              case "m" -> Duration.ofMinutes(n);
              case "d" -> Duration.ofDays(n);
              default -> Duration.ofHours(n);
            };
        if (d.compareTo(MAX_DURATION) > 0) {
          problems.add(key + ": '" + raw + "' is longer than 365 days");
          return Duration.ZERO;
        }
        return d;
      } catch (NumberFormatException | ArithmeticException e) {
        problems.add(key + ": '" + raw + "' is too large");
        return Duration.ZERO;
      }
    }

    long size(String key) {
      String raw = values.get(key).trim().toUpperCase(Locale.ROOT);
      Matcher m = SIZE.matcher(raw);
      if (!m.matches()) {
        problems.add(key + ": '" + raw + "' is not a size such as 512KB or 16MB");
        return 0;
      }
      String unit = m.group(2) == null ? "B" : m.group(2);
      long bytes;
      try {
        long n = Long.parseLong(m.group(1));
        bytes =
            switch (unit) {
              case "KB" -> Math.multiplyExact(n, 1024L);
              case "MB" -> Math.multiplyExact(n, 1024L * 1024);
              case "GB" -> Math.multiplyExact(n, 1024L * 1024 * 1024);
              default -> n;
            };
      } catch (NumberFormatException | ArithmeticException e) {
        problems.add(key + ": '" + raw + "' is too large");
        return 0;
      }
      if (bytes > Integer.MAX_VALUE) {
        problems.add(key + ": " + raw + " is too large; at most 2GB");
        return 0;
      }
      if (bytes < 1024) {
        problems.add(key + ": " + raw + " is too small; allow at least 1KB");
      }
      return bytes;
    }

    /** A rate such as {@code 100/s} ({@code 0}: off) with the burst of {@code burstKey}. */
    io.kurir.limit.RateLimit rate(String key, String burstKey) {
      int burst = integer(burstKey, 1, 1_000_000_000);
      String raw = values.get(key).trim();
      return io.kurir.limit.RateLimit.parse(raw, burst)
          .orElseGet(
              () -> {
                problems.add(
                    key
                        + ": '"
                        + raw
                        + "' is not a rate such as 100/s, 600/min or 5000/h (0 turns it off)");
                return io.kurir.limit.RateLimit.OFF;
              });
    }

    /** A comma-separated list of IP addresses and CIDR ranges. */
    List<String> addressRanges(String key) {
      List<String> ranges = new ArrayList<>();
      for (String range : values.get(key).split(",")) {
        if (range.isBlank()) {
          continue;
        }
        if (!io.kurir.tenant.AddressRange.isValid(range.strip())) {
          problems.add(key + ": '" + range.strip() + "' is not an IP address or CIDR range");
        } else {
          ranges.add(range.strip());
        }
      }
      return List.copyOf(ranges);
    }

    ZoneId zone(String key) {
      String raw = values.get(key).trim();
      try {
        return ZoneId.of(raw);
      } catch (DateTimeException e) {
        problems.add(key + ": '" + raw + "' is not a time zone such as Asia/Jakarta or +07:00");
        return ZoneId.of("Asia/Jakarta");
      }
    }
  }
}
