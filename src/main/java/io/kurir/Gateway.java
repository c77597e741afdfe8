package io.kurir;

import io.kurir.api.DriverRouteTable;
import io.kurir.api.HttpApi;
import io.kurir.api.ListeningSocket;
import io.kurir.api.RemoteMedia;
import io.kurir.api.RouteTable;
import io.kurir.api.account.AccountRoutes;
import io.kurir.api.admin.AdminRoutes;
import io.kurir.api.console.ConsoleDeps;
import io.kurir.api.console.ConsoleRoutes;
import io.kurir.api.crm.CrmRoutes;
import io.kurir.api.docs.ApiDocsRoutes;
import io.kurir.api.eco.EcoDeviceHandlers;
import io.kurir.api.eco.EcoMediaHandlers;
import io.kurir.api.eco.EcoMessageHandlers;
import io.kurir.api.eco.EcoReportHandlers;
import io.kurir.api.eco.EcoRoutes;
import io.kurir.api.eco.EcoScheduleHandlers;
import io.kurir.api.eco.EcoUploadHandlers;
import io.kurir.api.multiagent.MultiAgentRoutes;
import io.kurir.api.partner.PartnerRoutes;
import io.kurir.api.push.PushV1Routes;
import io.kurir.api.push.PushV2Routes;
import io.kurir.bot.Bots;
import io.kurir.bot.IncomingMessages;
import io.kurir.config.Settings;
import io.kurir.console.ConsoleSessions;
import io.kurir.console.SignInLimiter;
import io.kurir.contact.ContactIdentities;
import io.kurir.device.DeviceHolds;
import io.kurir.device.DeviceStates;
import io.kurir.device.QueueHolds;
import io.kurir.device.SenderTroubleAsState;
import io.kurir.device.SessionEvents;
import io.kurir.device.Sessions;
import io.kurir.driver.DeviceConfig;
import io.kurir.driver.DriverCatalog;
import io.kurir.driver.DriverFactory;
import io.kurir.driver.DriverRoutesContext;
import io.kurir.driver.Drivers;
import io.kurir.driver.SimulatedPhones;
import io.kurir.driver.sandbox.SandboxDriver;
import io.kurir.driver.sandbox.SandboxDriverFactory;
import io.kurir.driver.sandbox.SandboxNetwork;
import io.kurir.health.Health;
import io.kurir.health.HealthRoutes;
import io.kurir.limit.RequestLimits;
import io.kurir.media.CallerMedia;
import io.kurir.media.MediaFiles;
import io.kurir.media.MediaSweep;
import io.kurir.media.SafeFetcher;
import io.kurir.media.Uploads;
import io.kurir.message.MessageSearch;
import io.kurir.message.Messages;
import io.kurir.message.RetryPolicy;
import io.kurir.message.Sends;
import io.kurir.metrics.GatewayMetrics;
import io.kurir.metrics.MetricsEndpoint;
import io.kurir.phone.PhoneNumbers;
import io.kurir.report.Reports;
import io.kurir.schedule.ScheduleRunner;
import io.kurir.schedule.Schedules;
import io.kurir.store.DataFolder;
import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.store.InstanceLock;
import io.kurir.store.SecretKeys;
import io.kurir.tenant.DemoAccount;
import io.kurir.tenant.Device;
import io.kurir.tenant.DeviceDrivers;
import io.kurir.tenant.MobileCs;
import io.kurir.tenant.TenantDeviceLookup;
import io.kurir.tenant.TenantViews;
import io.kurir.tenant.Tenants;
import io.kurir.time.Timestamps;
import io.kurir.webhook.MessageWebhooks;
import io.kurir.webhook.WebhookDeliveries;
import io.kurir.webhook.WebhookOutbox;
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
  private final InstanceLock lock;
  private final DeviceStates deviceStates;
  private final QueueHolds queueHolds;
  private final WebhookOutbox outbox;
  private final Database db;
  private final Drivers drivers;
  private final Tenants tenants;
  private final Messages messages;
  private final ScheduleRunner scheduler;
  private final MediaSweep mediaSweep;
  private final Optional<Device> demoDevice;
  private final GatewayMetrics metrics;
  private volatile MetricsEndpoint metricsEndpoint;
  private volatile HttpApi http;

  private Gateway(
      Settings settings, Clock clock, DriverCatalog catalog, List<RouteTable> extraRoutes) {
    this.settings = settings;
    // The port first: a gateway that cannot listen says so before it writes anything to its data
    // folder (the lock file, the database).
    this.socket = ListeningSocket.bind(settings.host(), settings.port(), settings.tls());
    try {
      DataFolder.prepare(settings.dataDir());
      this.lock = Database.lockInstance(settings.database(), settings.nodeId());
    } catch (RuntimeException e) {
      socket.close();
      throw e;
    }
    try {
      // The secrets key is checked against the database, and what an older version stored in
      // plaintext is hashed and encrypted, before any service reads a credential.
      this.db =
          Database.open(
              settings.database(),
              new SecretKeys.Source(settings.secrets().keyFile(), settings.secrets().key()),
              // A key made beside the database is worth a warning in production, not in the demo.
              message -> {
                org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Gateway.class);
                if (settings.demo()) {
                  log.info(message);
                } else {
                  log.warn(message);
                }
              });
    } catch (RuntimeException e) {
      lock.close();
      socket.close();
      throw e;
    }
    try {
      this.metrics = new GatewayMetrics(db, clock);
      db.writes().observeCommits(metrics::committed);
      IdGenerator ids = new IdGenerator(clock, settings.nodeId());
      PhoneNumbers phones = new PhoneNumbers(settings.defaultRegion());
      Timestamps timestamps = new Timestamps(settings.zone());
      // One guard for every caller-given URL (media and webhook targets): one connection pool.
      SafeFetcher urlGuard = new SafeFetcher(settings.media(), clock);
      // One instance: its lock orders keeping a file against the sweep's removing it.
      MediaFiles mediaFiles = new MediaFiles(settings.dataDir(), clock);
      this.mediaSweep = new MediaSweep(mediaFiles, db, clock, settings.media().keepFor());
      this.tenants =
          new Tenants(db, ids, clock, settings.zone(), phones, DeviceDrivers.of(catalog));
      ContactIdentities contacts = new ContactIdentities(db, clock);
      this.drivers =
          Drivers.load(
              catalog,
              settings::driver,
              id -> new DeviceConfig(tenants.deviceConfig(id)),
              db,
              clock,
              settings.dataDir(),
              settings.callbackUrlIfSet(),
              contacts);
      this.outbox =
          new WebhookOutbox(
              db,
              clock,
              urlGuard,
              settings.webhooks().retryFor(),
              settings.webhooks().timeout(),
              settings.nodeId());
      outbox.observeAttempts(metrics::webhookAttempt);
      outbox.start();
      MessageWebhooks messageWebhooks =
          new MessageWebhooks(
              db,
              ids,
              clock,
              timestamps,
              outbox::wake,
              ServerAddress.of(settings.host()),
              this::port);
      CallerMedia callerMedia = new CallerMedia(urlGuard, mediaFiles);
      this.messages =
          new Messages(
              db,
              ids,
              clock,
              drivers,
              tenants,
              new RetryPolicy(settings.retryBackoff(), settings.maxRetries()),
              messageWebhooks,
              callerMedia,
              "node-" + settings.nodeId());
      messages.observeWith(metrics); // before any device is used: every sender reports to it
      messages.answerSyncWithin(settings.syncTimeout());
      messages.knowContactsFrom(contacts);
      tenants.onDeviceChanged(messages::deviceChanged);
      tenants.onDeviceDeleted(messages::deviceDeleted);
      Bots bots = new Bots(db, ids, clock);
      MobileCs mobileCs = new MobileCs(db, ids, clock, tenants);
      this.deviceStates = new DeviceStates(db, clock, ids, timestamps, outbox::wake);
      messages.reportTroubleTo(new SenderTroubleAsState(deviceStates));
      IncomingMessages incoming =
          new IncomingMessages(
              db,
              ids,
              clock,
              tenants,
              bots,
              messages,
              messageWebhooks,
              contacts,
              settings.bots().answerInGroups());
      DeviceHolds deviceHolds = new DeviceHolds(db, clock);
      messages.holdWith(deviceHolds::isHeld);
      this.queueHolds = new QueueHolds(deviceHolds, deviceStates, messages, drivers);
      // A held device resumes when its configuration changes (a new token, a fixed number id).
      tenants.onDeviceChanged(d -> queueHolds.resume(d, "its configuration changed"));
      drivers.start(new SessionEvents(messages, deviceStates, incoming::received, queueHolds));
      if (settings.demo()) {
        Device demo = DemoAccount.seed(tenants);
        sandbox().pair(demo.id(), demo.number());
        this.demoDevice = Optional.of(demo);
      } else {
        this.demoDevice = Optional.empty();
      }

      this.scheduler =
          new ScheduleRunner(
              db,
              messages,
              tenants,
              urlGuard,
              mediaFiles,
              clock,
              settings.nodeId(),
              settings.media().maxKb());
      scheduler.observeLateness(metrics::scheduleLateness);
      Schedules schedules = new Schedules(db, ids, clock, urlGuard, messages, scheduler::wake);
      tenants.onDeviceDeleted(schedules::deviceDeleted);
      Sessions sessions = new Sessions(drivers, deviceStates, queueHolds);
      sessions.reconcile(tenants.devices());
      List<RouteTable> tables = new ArrayList<>();
      Sends sends = new Sends(messages, settings.syncTimeout());
      EcoMessageHandlers ecoMessages =
          new EcoMessageHandlers(messages, sends, phones, contacts, timestamps, clock);
      tables.add(
          new EcoRoutes(
              tenants,
              ecoMessages,
              new EcoMediaHandlers(ecoMessages, callerMedia, settings.media().maxKb()),
              new EcoUploadHandlers(
                  new Uploads(
                      db,
                      ids,
                      clock,
                      mediaFiles,
                      settings.media().maxBytes(),
                      settings.media().uploadQuotaBytes()),
                  ecoMessages,
                  settings.media().maxKb()),
              ecoMessages.groups(),
              new EcoReportHandlers(new Reports(db, clock, settings.zone()), timestamps),
              new EcoDeviceHandlers(sessions, urlGuard, VERSION),
              new EcoScheduleHandlers(
                  schedules, phones, timestamps, settings.media().maxKb(), contacts),
              settings.trustedProxies()));
      tables.add(
          new AdminRoutes(
              tenants,
              new TenantViews(timestamps),
              messages,
              sessions,
              messageWebhooks,
              new WebhookDeliveries(db, clock),
              outbox::wake,
              settings.webhooks().secretOverlap(),
              timestamps,
              mobileCs,
              settings.pushAppId(),
              settings.publicUrlIfSet(),
              settings.adminTokenIfSet()));
      tables.add(
          new ConsoleRoutes(
              new ConsoleDeps(
                  tenants,
                  messages,
                  sends,
                  new MessageSearch(db),
                  sessions,
                  messageWebhooks,
                  new WebhookDeliveries(db, clock),
                  outbox::wake,
                  urlGuard,
                  bots,
                  schedules,
                  phones,
                  timestamps,
                  clock,
                  new ConsoleSessions(db, clock),
                  new SignInLimiter(clock),
                  simulatedPhone(),
                  settings.webhooks().secretOverlap(),
                  settings.adminTokenIfSet(),
                  settings.publicUrlIfSet(),
                  settings.trustedProxies())));
      RemoteMedia remoteMedia = new RemoteMedia(callerMedia, settings.media().maxKb());
      tables.add(
          new AccountRoutes(
              tenants,
              phones,
              messageWebhooks,
              urlGuard,
              mobileCs,
              sends,
              timestamps,
              sessions,
              remoteMedia));
      tables.add(new PartnerRoutes(tenants, bots, messages, phones));
      tables.add(new PushV1Routes(tenants, mobileCs, phones, sends, settings.pushAppIds()));
      tables.add(
          new PushV2Routes(
              tenants, mobileCs, phones, sends, schedules, remoteMedia, ids, timestamps));
      tables.add(new CrmRoutes(tenants, phones, sends, remoteMedia, contacts));
      tables.add(
          new MultiAgentRoutes(
              tenants,
              phones,
              sends,
              remoteMedia,
              mediaFiles,
              timestamps,
              settings.media().maxKb(),
              contacts));
      // Drivers declare their routes as data; the HTTP layer serves them, guarded here: the
      // control routes take the admin token, except in the demo, which is open by design.
      DriverRoutesContext routesContext =
          new DriverRoutesContext(new TenantDeviceLookup(tenants), phones, timestamps);
      Optional<String> controlToken =
          settings.demo() ? Optional.empty() : settings.adminTokenIfSet();
      for (DriverFactory f : catalog.factories()) {
        drivers
            .named(f.name())
            .ifPresent(
                d ->
                    f.routes(d, routesContext)
                        .forEach(r -> tables.add(new DriverRouteTable(r, controlToken))));
      }
      tables.add(new ApiDocsRoutes(VERSION));
      tables.addAll(extraRoutes);
      tables.add(new HealthRoutes(new Health(db, drivers)));
      try {
        this.metricsEndpoint = MetricsEndpoint.start(settings, metrics);
        tables.add(metricsEndpoint.apiPortRoutes());
        RequestLimits limits =
            new RequestLimits(
                settings.limits().perKey(),
                settings.limits().perAddress(),
                settings.limits().exempt(),
                clock);
        this.http =
            HttpApi.start(
                socket,
                settings.maxBodyBytes(),
                limits,
                settings.trustedProxies(),
                tables,
                metrics,
                settings.edge());
      } catch (RuntimeException e) {
        if (metricsEndpoint != null) {
          metricsEndpoint.close();
        }
        // Nothing may be sent by a gateway that could not start (its port is taken, say).
        stopCore();
        throw e;
      }
      // Only now: a gateway that cannot serve must not send what an earlier run left pending.
      messages.resume();
      scheduler.start(); // after the resume: what it hands over is queued by its own accept
      mediaSweep.start();
    } catch (RuntimeException e) {
      // Whatever failed on the way up, the database and its lock are released (closing twice is
      // harmless when the HTTP failure path has closed them already).
      db.close();
      lock.close();
      socket.close();
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
    return db;
  }

  public Tenants tenants() {
    return tenants;
  }

  public Messages messages() {
    return messages;
  }

  /** The sweep of unreferenced media files (tests run it at once instead of waiting an hour). */
  public MediaSweep mediaSweep() {
    return mediaSweep;
  }

  /** The simulated network of the sandbox driver (tests, the demo). */
  public SandboxNetwork sandbox() {
    return sandboxNetwork()
        .orElseThrow(() -> new IllegalStateException("the sandbox driver is not loaded"));
  }

  /** The phone of the first loaded driver over a simulated network, for the console's button. */
  private Optional<ConsoleDeps.SimulatedPhone> simulatedPhone() {
    return drivers.all().stream()
        .filter(SimulatedPhones.class::isInstance)
        .findFirst()
        .map(
            d ->
                new ConsoleDeps.SimulatedPhone(
                    d.name(), device -> ((SimulatedPhones) d).scanCurrentCode(device.ref())));
  }

  private Optional<SandboxNetwork> sandboxNetwork() {
    return drivers.all().stream()
        .filter(SandboxDriver.class::isInstance)
        .map(d -> ((SandboxDriver) d).network())
        .findFirst();
  }

  /** Devices whose queue is held because their network refused the account. */
  public QueueHolds queueHolds() {
    return queueHolds;
  }

  public DeviceStates deviceStates() {
    return deviceStates;
  }

  public Optional<Device> demoDevice() {
    return demoDevice;
  }

  /** The port of {@code /metrics}'s own listener ({@code metrics.access=port}). */
  public java.util.OptionalInt metricsPort() {
    return metricsEndpoint.ownPort();
  }

  @Override
  public void close() {
    http.close(); // no new requests
    metricsEndpoint.close();
    socket.close(); // the server closed it already; this is for a server that never started
    stopCore();
  }

  private void stopCore() {
    mediaSweep.close(); // removes nothing more; a sweep under way ends with the database
    scheduler.close(); // nothing new is handed to the senders
    messages.close(); // senders finish the send in progress and record it
    drivers.close(); // a driver that made its network (the sandbox's) closes it
    outbox.close(); // a delivery in progress is recorded; the rest wait in the database
    db.close(); // the writer commits what it holds before closing
    metrics.close();
    lock.close();
  }
}
