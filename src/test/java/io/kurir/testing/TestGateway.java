package io.kurir.testing;

import io.kurir.Gateway;
import io.kurir.config.Settings;
import io.kurir.config.SettingsLoader;
import io.kurir.config.SettingsLoader.Profile;
import io.kurir.driver.DriverCatalog;
import io.kurir.driver.DriverFactory;
import io.kurir.driver.sandbox.SandboxDriverFactory;
import io.kurir.driver.sandbox.SandboxNetwork;
import io.kurir.driver.standard.StandardDrivers;
import io.kurir.tenant.Credentials;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.Partner;
import io.kurir.time.SettableClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A real gateway on a free loopback port, on a SQLite file in a temporary folder (or a PostgreSQL
 * database in a class marked {@link OnPostgreSQL}), with the sandbox driver, and a real HTTP client
 * to talk to it. Pacing is off unless a test turns it on. Its secrets key is the fixed test key
 * ({@link TestDatabases#flags}), on SQLite too: no test gateway makes a key file or logs the WARN
 * that asks to move it ({@code --secrets.key=} after it brings that back, for tests of it).
 */
public final class TestGateway implements AutoCloseable {
  public static final String ADMIN_TOKEN = "test-admin-token-0123456789";

  private final Path dir;
  private final Clock clock;
  private final SandboxNetwork sandbox;
  private final List<String> flags;
  private final DriverFactory extraDriver; // null: the standard drivers only
  private final HttpClient http =
      HttpClient.newBuilder()
          .followRedirects(HttpClient.Redirect.NEVER)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private Gateway gateway;
  // Every exchange through this client: close() checks each reply against the API document.
  private final List<OpenApiDocument.Exchange> exchanges =
      java.util.Collections.synchronizedList(new ArrayList<>());

  private TestGateway(Path dir, Clock clock, DriverFactory extraDriver, List<String> flags) {
    this.dir = dir;
    this.clock = clock;
    this.flags = flags;
    this.extraDriver = extraDriver;
    Settings settings = settings();
    this.sandbox =
        new SandboxNetwork(
            clock,
            settings.driver("sandbox").duration("delivery-after"),
            settings.driver("sandbox").duration("read-after"),
            settings.driver("sandbox").bool("deduplicate"));
    this.gateway = startGateway(settings);
  }

  private Gateway startGateway(Settings settings) {
    TestDatabases.seedSqlite(settings.database());
    DriverCatalog catalog = StandardDrivers.catalog().with(new SandboxDriverFactory(sandbox));
    return Gateway.start(
        settings, clock, extraDriver == null ? catalog : catalog.with(extraDriver));
  }

  /** A gateway on the system clock. Extra flags override the test defaults. */
  public static TestGateway start(Path dir, String... extraFlags) {
    return start(dir, Clock.systemUTC(), extraFlags);
  }

  public static TestGateway start(Path dir, Clock clock, String... extraFlags) {
    return new TestGateway(dir, clock, null, List.of(extraFlags));
  }

  /** A gateway that also loads the driver {@code extraDriver} makes (a driver under test). */
  public static TestGateway start(
      Path dir, Clock clock, DriverFactory extraDriver, String... extraFlags) {
    return new TestGateway(dir, clock, extraDriver, List.of(extraFlags));
  }

  /**
   * The flags that turn the campaigns' safe-sending policy off, each part of it by name, followed
   * by {@code more}: for tests about campaigns rather than their pacing (V1CampaignSafeSendingTest
   * tests the policy), whose new sandbox numbers would otherwise send 20 a day, 10-30 s apart.
   */
  public static String[] safeSendingOff(String... more) {
    List<String> flags =
        new ArrayList<>(
            List.of(
                "--campaigns.safe-sending.daily-cap=0",
                "--campaigns.safe-sending.gap-min=0s",
                "--campaigns.safe-sending.gap-max=0s",
                "--campaigns.safe-sending.unanswered-max=100"));
    flags.addAll(List.of(more));
    return flags.toArray(String[]::new);
  }

  /** A settable clock starting at a fixed instant. */
  public static SettableClock settableClock() {
    return new SettableClock(Instant.parse("2026-03-10T03:00:00Z"));
  }

  public Settings settings() {
    List<String> all =
        new ArrayList<>(
            List.of(
                "--server.host=127.0.0.1",
                "--server.port=0",
                "--data.dir=" + dir.resolve("data"),
                "--admin.token=" + ADMIN_TOKEN,
                "--sandbox.api=true",
                "--pacing.min-gap=0ms",
                "--pacing.jitter=0ms",
                "--send.sync-timeout=5s",
                "--send.retry-backoff=10s",
                "--sandbox.delivery-after=1s",
                "--sandbox.read-after=2s"));
    all.addAll(TestDatabases.flags(dir.resolve("data").resolve("kurir.db")));
    all.addAll(flags);
    return SettingsLoader.load(Profile.SERVE, all, Map.of(), dir);
  }

  /** Stops the gateway and starts a new one on the same database and sandbox network. */
  public void restart() {
    gateway.close();
    gateway = startGateway(settings());
  }

  /** Stops the gateway; {@link #startAgain} brings it back on the same database and network. */
  public void stop() {
    gateway.close();
    gateway = null;
  }

  public void startAgain() {
    gateway = startGateway(settings());
  }

  public Gateway gateway() {
    return gateway;
  }

  public SandboxNetwork sandbox() {
    return sandbox;
  }

  public Path dir() {
    return dir;
  }

  public String url(String path) {
    return gateway.baseUrl() + path;
  }

  // The partners and licenses newDevice made, as made: with the credentials that are stored only
  // as hashes (a license's code and push key, a partner's secret), which a read cannot give back.
  private final Map<Long, Partner> madePartners = new java.util.concurrent.ConcurrentHashMap<>();
  private final Map<Long, License> madeLicenses = new java.util.concurrent.ConcurrentHashMap<>();

  private void made(Partner p, License l) {
    madePartners.put(p.id(), p);
    madeLicenses.put(l.id(), l);
  }

  /**
   * The license of a device {@link #newDevice} made, as it is now, with its code and push key as
   * they were made (unless they changed since): what its customer holds.
   */
  public License licenseOf(Device device) {
    License now = gateway.tenants().license(device.licenseId());
    License made = madeLicenses.get(now.id());
    if (made == null) {
      return now;
    }
    return new License(
        now.id(),
        now.partnerId(),
        Credentials.matches(now.code(), made.code()) ? made.code() : now.code(),
        now.name(),
        now.email(),
        now.expiresOn(),
        now.allowedAddresses(),
        now.disabled(),
        now.createdAt(),
        now.webhookSecret(),
        Credentials.matches(now.pushKey(), made.pushKey()) ? made.pushKey() : now.pushKey());
  }

  /** The partner of a device {@link #newDevice} made, with its secret as made (unless changed). */
  public Partner partnerOf(Device device) {
    Partner now = gateway.tenants().partner(licenseOf(device).partnerId());
    Partner made = madePartners.get(now.id());
    return made != null && Credentials.matches(now.basicSecret(), made.basicSecret()) ? made : now;
  }

  /** A new partner, license and device, paired on the sandbox unless {@code paired} is false. */
  public Device newDevice(String number, boolean paired) {
    Partner p = gateway.tenants().createPartner("Partner " + number, "p@example.com");
    License l = gateway.tenants().createLicense(p.id(), "Customer " + number, "", null, List.of());
    made(p, l);
    Device d = gateway.tenants().createDevice(l.id(), number, "sandbox");
    if (paired) {
      sandbox.pair(d.id(), d.number());
    }
    return d;
  }

  /** A new partner, license and device of driver {@code driver} with its configuration. */
  public Device newDevice(String number, String driver, Map<String, String> config) {
    Partner p = gateway.tenants().createPartner("Partner " + number, "p@example.com");
    License l = gateway.tenants().createLicense(p.id(), "Customer " + number, "", null, List.of());
    made(p, l);
    return gateway.tenants().createDevice(l.id(), number, driver, config);
  }

  /** The network's id of message {@code messageId}, once its send was recorded. */
  public java.util.Optional<String> networkIdOf(long messageId) {
    return TestTables.of(this).message(messageId).flatMap(TestTables.MessageRow::networkId);
  }

  /** Messages stored for {@code deviceId}, in any state. */
  public long storedMessages(long deviceId) {
    return TestTables.of(this).messagesOf(deviceId).size();
  }

  /** Incoming messages stored for {@code deviceId} (a redelivery is not stored again). */
  public int storedIncoming(long deviceId) {
    return TestTables.of(this).inboundOf(deviceId).size();
  }

  public Device newDevice() {
    return newDevice("+6281100009999", true);
  }

  // --- HTTP

  /** {@code async_send_message} of {@code text} from {@code device} to {@code to}: the answer. */
  public Reply sendAsync(Device device, String to, String text) {
    return postJson(
        "/api/async_send_message",
        "{\"key\":\""
            + device.ecoKey()
            + "\",\"phone_no\":\""
            + to
            + "\",\"message\":\""
            + text
            + "\"}");
  }

  public Reply postJson(String path, String json) {
    return post(path, json, "application/json");
  }

  public Reply postForm(String path, String form) {
    return post(path, form, "application/x-www-form-urlencoded");
  }

  /** POST with the given content type, or none when {@code contentType} is null. */
  public Reply post(String path, String body, String contentType, String... headers) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(url(path)))
            .timeout(Duration.ofSeconds(20))
            .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    if (contentType != null) {
      b.header("Content-Type", contentType);
    }
    if (headers.length > 0) {
      b.headers(headers);
    }
    return send(b.build(), body);
  }

  public Reply postMultipart(String path, Map<String, String> fields) {
    String boundary = "----kurirtest" + System.nanoTime();
    StringBuilder body = new StringBuilder();
    fields.forEach(
        (k, v) ->
            body.append("--")
                .append(boundary)
                .append("\r\nContent-Disposition: form-data; name=\"")
                .append(k)
                .append("\"\r\n\r\n")
                .append(v)
                .append("\r\n"));
    body.append("--").append(boundary).append("--\r\n");
    return post(path, body.toString(), "multipart/form-data; boundary=" + boundary);
  }

  public Reply get(String path, String... headers) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url(path))).GET();
    if (headers.length > 0) {
      b.headers(headers);
    }
    return send(b.build());
  }

  public Reply send(HttpRequest request) {
    return send(request, null);
  }

  /** Sends {@code request}, whose body is {@code body} (null: not known to this client). */
  public Reply send(HttpRequest request, String body) {
    Reply reply = null;
    for (int attempt = 1; reply == null; attempt++) {
      try {
        reply = sendOnce(request);
      } catch (AssertionError e) {
        // A pooled keep-alive connection the server had just closed (after refusing a body it did
        // not read) fails before the request is read; a client then retries on a new connection.
        // The pool may hold more than one such connection, and a refused body that is still being
        // written when the server closes can lose its answer too (seen with classes running
        // concurrently): three tries, each answered or failing at once.
        if (attempt == 3 || !String.valueOf(e.getCause()).contains("received no bytes")) {
          throw e;
        }
      }
    }
    exchanges.add(
        new OpenApiDocument.Exchange(
            request.method(),
            request.uri().getRawQuery() == null
                ? request.uri().getRawPath()
                : request.uri().getRawPath() + "?" + request.uri().getRawQuery(),
            request.headers().firstValue("Content-Type").orElse(""),
            body == null ? "" : body,
            reply.status(),
            reply.contentType(),
            reply.body()));
    return reply;
  }

  private Reply sendOnce(HttpRequest request) {
    try {
      HttpResponse<String> r =
          http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      return new Reply(r.statusCode(), r.body(), r.headers().firstValue("Content-Type").orElse(""));
    } catch (Exception e) {
      throw new AssertionError("request failed: " + request.uri(), e);
    }
  }

  /** Every request sent through this client so far, with its reply. */
  public List<OpenApiDocument.Exchange> exchanges() {
    synchronized (exchanges) {
      return List.copyOf(exchanges);
    }
  }

  /**
   * Stops the gateway, then checks every reply this client got against the API document ({@code
   * /openapi.json}): a reply of a documented endpoint that the document does not describe fails the
   * test that made it. Requests are not checked here: suites send malformed ones on purpose ({@code
   * OpenApiExchangesTest} checks the canonical request of each endpoint).
   */
  @Override
  public void close() {
    if (gateway != null) {
      gateway.close();
    }
    sandbox.close();
    List<String> problems = new ArrayList<>();
    for (OpenApiDocument.Exchange e : exchanges()) {
      problems.addAll(OpenApiDocument.served().problems(e, false));
    }
    if (!problems.isEmpty()) {
      throw new AssertionError(
          "replies that the API document (src/main/resources/openapi.yaml) does not describe:\n"
              + String.join("\n", problems));
    }
  }

  /** An HTTP reply. */
  public record Reply(int status, String body, String contentType) {}
}
