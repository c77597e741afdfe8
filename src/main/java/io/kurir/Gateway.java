package io.kurir;

import io.kurir.api.HttpApi;
import io.kurir.api.ListeningSocket;
import io.kurir.api.RouteTable;
import io.kurir.config.Settings;
import io.kurir.device.DeviceStates;
import io.kurir.device.QueueHolds;
import io.kurir.driver.DriverCatalog;
import io.kurir.driver.sandbox.SandboxDriver;
import io.kurir.driver.sandbox.SandboxDriverFactory;
import io.kurir.driver.sandbox.SandboxNetwork;
import io.kurir.driver.standard.StandardDrivers;
import io.kurir.limit.RequestLimits;
import io.kurir.media.MediaSweep;
import io.kurir.message.Messages;
import io.kurir.metrics.MetricsEndpoint;
import io.kurir.store.DataFolder;
import io.kurir.store.Database;
import io.kurir.store.SecretKeys;
import io.kurir.tenant.DemoAccount;
import io.kurir.tenant.Device;
import io.kurir.tenant.Tenants;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One running gateway: the database, the core services, the drivers and the HTTP server, started in
 * that order and stopped in the reverse one, so that nothing accepted is lost on the way down.
 */
public final class Gateway implements AutoCloseable {
  private final Settings settings;

  /** Kurir's version, from the jar's manifest ({@code dev} when run from classes). */
  public static final String VERSION =
      java.util.Optional.ofNullable(Gateway.class.getPackage().getImplementationVersion())
          .orElse("dev");

  private final ListeningSocket socket;
  // Everything opened, closed in reverse: the rollback of a failed start and the shutdown alike.
  private final Closers closers = new Closers();
  private final Core core;
  private final Optional<Device> demoDevice;
  private final MetricsEndpoint metricsEndpoint;
  private final HttpApi http;

  private Gateway(
      Settings settings, Clock clock, DriverCatalog catalog, List<RouteTable> extraRoutes) {
    this.settings = settings;
    // The port first: a gateway that cannot listen says so before it writes anything to its data
    // folder (the lock file, the database). The server closes it; this is for one that never
    // started.
    this.socket =
        closers.push(
            "listening socket",
            ListeningSocket.bind(settings.host(), settings.port(), settings.tls()));
    try {
      DataFolder.prepare(settings.dataDir());
      closers.push("instance lock", Database.lockInstance(settings.database(), settings.nodeId()));
      // The secrets key is checked against the database, and what an older version stored in
      // plaintext is hashed and encrypted, before any service reads a credential. The writer
      // commits what it holds before closing.
      Database db =
          closers.push(
              "database",
              Database.open(
                  settings.database(),
                  new SecretKeys.Source(settings.secrets().keyFile(), settings.secrets().key()),
                  // A key made beside the database is worth a warning in production, not in the
                  // demo.
                  message -> {
                    org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Gateway.class);
                    if (settings.demo()) {
                      log.info(message);
                    } else {
                      log.warn(message);
                    }
                  }));
      this.core = Core.open(settings, clock, catalog, db, this::port, closers);
      if (settings.demo()) {
        Device demo = DemoAccount.seed(core.tenants());
        sandbox().pair(demo.id(), demo.number());
        this.demoDevice = Optional.of(demo);
      } else {
        this.demoDevice = Optional.empty();
      }
      core.sessions().reconcile(core.tenants().devices());
      List<RouteTable> tables = new ArrayList<>(FamilyRoutes.of(core, catalog));
      tables.addAll(extraRoutes);
      tables.add(FamilyRoutes.health(core));
      this.metricsEndpoint =
          closers.push("metrics endpoint", MetricsEndpoint.start(settings, core.metrics()));
      tables.add(metricsEndpoint.apiPortRoutes());
      RequestLimits limits =
          new RequestLimits(
              settings.limits().perKey(),
              settings.limits().perAddress(),
              settings.limits().exempt(),
              clock);
      // Closed first: no new requests.
      this.http =
          closers.push(
              "HTTP server",
              HttpApi.start(
                  socket,
                  settings.maxBodyBytes(),
                  limits,
                  settings.trustedProxies(),
                  tables,
                  core.metrics(),
                  settings.edge()));
      // Only now: a gateway that cannot serve must not send what an earlier run left pending.
      core.startSending(closers);
    } catch (RuntimeException | Error e) {
      // Whatever failed on the way up, what was opened is closed, the last first: nothing is sent
      // by a gateway that could not start (its port is taken, say), and the database and its lock
      // are released.
      closers.close();
      throw e;
    }
  }

  /** Starts a gateway with its own sandbox network. */
  public static Gateway start(Settings settings, Clock clock) {
    return new Gateway(settings, clock, StandardDrivers.catalog(), List.of());
  }

  /** Starts a gateway on an existing sandbox network, which outlives it (restart tests). */
  public static Gateway start(Settings settings, Clock clock, SandboxNetwork sandbox) {
    return new Gateway(
        settings,
        clock,
        StandardDrivers.catalog().with(new SandboxDriverFactory(sandbox)),
        List.of());
  }

  /**
   * Starts a gateway with the drivers of {@code catalog} (a driver under test beside the standard
   * ones): each is loaded with its settings section, and its routes are served on the gateway's
   * port.
   */
  public static Gateway start(Settings settings, Clock clock, DriverCatalog catalog) {
    return new Gateway(settings, clock, catalog, List.of());
  }

  /**
   * Starts a gateway serving {@code extraRoutes} beside its own, on the same server: the
   * benchmark's no-op endpoint, which measures the HTTP stack's ceiling.
   */
  public static Gateway start(Settings settings, Clock clock, List<RouteTable> extraRoutes) {
    return new Gateway(settings, clock, StandardDrivers.catalog(), extraRoutes);
  }

  /** Every route it serves, as {@code "METHOD /path"} ({@link HttpApi#servedRoutes}). */
  public List<String> servedRoutes() {
    return http.servedRoutes();
  }

  /** The port it serves on (bound before anything else started). */
  public int port() {
    return socket.port();
  }

  /**
   * Where it really listens, for the start-up line: {@code http://127.0.0.1:8080}, or for every
   * interface {@code http://0.0.0.0:8080 (every interface; from this machine
   * http://127.0.0.1:8080)}.
   */
  public String listeningOn() {
    String redirect =
        socket
            .redirect()
            .map(r -> "; port " + r.port() + " redirects plain http:// to it")
            .orElse("");
    return listeningOn(socket.scheme(), settings.host(), port()) + redirect;
  }

  /** {@link #listeningOn()} for {@code host} and {@code port}. */
  static String listeningOn(String host, int port) {
    return listeningOn("http", host, port);
  }

  /** {@link #listeningOn()} for {@code scheme} ({@code http} or {@code https}). */
  static String listeningOn(String scheme, String host, int port) {
    if (host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]")) {
      String any = host.equals("0.0.0.0") ? "0.0.0.0" : "[::]";
      return scheme
          + "://"
          + any
          + ":"
          + port
          + " (every interface; from this machine "
          + scheme
          + "://127.0.0.1:"
          + port
          + ")";
    }
    return scheme + "://" + host + ":" + port;
  }

  /** The address clients use, e.g. {@code http://127.0.0.1:8080} (https with TLS on). */
  public String baseUrl() {
    String host = socket.everyInterface() ? "127.0.0.1" : settings.host();
    return socket.scheme() + "://" + host + ":" + port();
  }

  public Settings settings() {
    return settings;
  }

  /** The gateway's database, for tests and tools that read what the core stored. */
  public Database database() {
    return core.db();
  }

  public Tenants tenants() {
    return core.tenants();
  }

  public Messages messages() {
    return core.messages();
  }

  /** The licenses' contact books (tests read what an import or an opt-out stored). */
  public io.kurir.contactbook.ContactBook contactBook() {
    return core.contactBook();
  }

  /** The licenses' campaigns (tests read a campaign's progress). */
  public io.kurir.campaign.Campaigns campaigns() {
    return core.campaigns();
  }

  /** The sweep of unreferenced media files (tests run it at once instead of waiting an hour). */
  public MediaSweep mediaSweep() {
    return core.mediaSweep();
  }

  /** The simulated network of the sandbox driver (tests, the demo). */
  public SandboxNetwork sandbox() {
    return sandboxNetwork()
        .orElseThrow(() -> new IllegalStateException("the sandbox driver is not loaded"));
  }

  private Optional<SandboxNetwork> sandboxNetwork() {
    return core.drivers().all().stream()
        .filter(SandboxDriver.class::isInstance)
        .map(d -> ((SandboxDriver) d).network())
        .findFirst();
  }

  /** Devices whose queue is held because their network refused the account. */
  public QueueHolds queueHolds() {
    return core.queueHolds();
  }

  public DeviceStates deviceStates() {
    return core.deviceStates();
  }

  public Optional<Device> demoDevice() {
    return demoDevice;
  }

  /** The port of {@code /metrics}'s own listener ({@code metrics.access=port}). */
  public java.util.OptionalInt metricsPort() {
    return metricsEndpoint.ownPort();
  }

  /** Stops the gateway: what it opened, the last first ({@link Closers}). */
  @Override
  public void close() {
    closers.close();
  }
}
