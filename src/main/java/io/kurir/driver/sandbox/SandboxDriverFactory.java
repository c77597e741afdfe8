package io.kurir.driver.sandbox;

import io.kurir.driver.ConfigKey;
import io.kurir.driver.Driver;
import io.kurir.driver.DriverContext;
import io.kurir.driver.DriverFactory;
import io.kurir.driver.DriverRoutes;
import io.kurir.driver.DriverRoutesContext;
import io.kurir.driver.DriverSetting;
import io.kurir.driver.DriverSetting.Kind;
import io.kurir.driver.DriverSettings;
import io.kurir.driver.Pacing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The sandbox: the simulated phone network, Kurir's embedded default. Its settings are {@code
 * drivers.sandbox.*} (the older {@code sandbox.*} and {@code pacing.*} names still work); a device
 * on it needs no configuration.
 */
public final class SandboxDriverFactory implements DriverFactory {
  public static final String NAME = "sandbox";

  /** The network's journal, in the driver's folder ({@code <data.dir>/drivers/sandbox}). */
  public static final String JOURNAL_FILE = "network.jsonl";

  private final Optional<SandboxNetwork> existing;

  /** A factory whose driver makes its own network from its settings. */
  public SandboxDriverFactory() {
    this.existing = Optional.empty();
  }

  /** A factory whose driver runs on {@code network}, which outlives it (restart tests). */
  public SandboxDriverFactory(SandboxNetwork network) {
    this.existing = Optional.of(network);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<DriverSetting> settings() {
    List<DriverSetting> settings = new ArrayList<>();
    settings.addAll(
        List.of(
            DriverSetting.of("api", Kind.BOOLEAN, "false", "true").alsoCalled("sandbox.api"),
            DriverSetting.of("delivery-after", Kind.DURATION, "2s", "2s")
                .alsoCalled("sandbox.delivery-after"),
            DriverSetting.of("read-after", Kind.DURATION, "5s", "5s")
                .alsoCalled("sandbox.read-after"),
            DriverSetting.of("deduplicate", Kind.BOOLEAN, "true", "true"),
            // The network outlives the gateway: its state is kept in <data.dir>/drivers/sandbox.
            DriverSetting.of("journal", Kind.BOOLEAN, "true", "true")));
    // Paced like a linked phone; the demo sends at once: nobody is banned on a simulated network.
    // The gap and jitter were global settings once: their old names are still read.
    for (DriverSetting s :
        Pacing.settings(new Pacing(Duration.ofSeconds(1), Duration.ofSeconds(2)), Pacing.OFF)) {
      boolean wasGlobal = s.key().equals(Pacing.MIN_GAP_KEY) || s.key().equals(Pacing.JITTER_KEY);
      settings.add(wasGlobal ? s.alsoCalled(s.key()) : s);
    }
    return settings;
  }

  @Override
  public List<ConfigKey> deviceConfigKeys() {
    return List.of();
  }

  @Override
  public List<String> checkSettings(DriverSettings settings, boolean demo, boolean adminTokenSet) {
    List<String> problems = new ArrayList<>();
    if (settings.bool("api") && !demo && !adminTokenSet) {
      problems.add(
          "drivers.sandbox.api: outside demo mode the sandbox API needs admin.token to be set");
    }
    return problems;
  }

  @Override
  public Driver create(DriverContext context) {
    DriverSettings s = context.settings();
    if (existing.isPresent()) {
      return new SandboxDriver(existing.get(), false, s.bool("api"), context.contacts());
    }
    SandboxNetwork network =
        s.bool("journal")
            ? SandboxNetwork.journaled(
                context.clock(),
                s.duration("delivery-after"),
                s.duration("read-after"),
                s.bool("deduplicate"),
                context.dataDir().resolve(JOURNAL_FILE))
            : new SandboxNetwork(
                context.clock(),
                s.duration("delivery-after"),
                s.duration("read-after"),
                s.bool("deduplicate"));
    if (s.bool("deduplicate") && context.sessions().sharedBetweenNodes()) {
      network.shareDeduplication(new SharedFirstSends(context.sessions(), context.clock()));
    }
    return new SandboxDriver(network, true, s.bool("api"), context.contacts());
  }

  /**
   * The sandbox's received message ids in the database that several gateways share, kept a day (a
   * take-over comes within seconds); the old ones are removed every few thousand sends.
   */
  private static final class SharedFirstSends implements SandboxNetwork.FirstSends {
    private static final String PREFIX = "received:";
    private static final java.time.Duration KEEP = java.time.Duration.ofDays(1);
    private static final int PRUNE_EVERY = 5_000;
    private final io.kurir.driver.DeviceSessionStore store;
    private final java.time.Clock clock;
    private final java.util.concurrent.atomic.AtomicInteger sends =
        new java.util.concurrent.atomic.AtomicInteger();

    SharedFirstSends(io.kurir.driver.DeviceSessionStore store, java.time.Clock clock) {
      this.store = store;
      this.clock = clock;
    }

    @Override
    public String firstNetworkId(long deviceId, long messageId, String networkId) {
      if (sends.incrementAndGet() % PRUNE_EVERY == 0) {
        store.removeOlderThan(PREFIX, clock.instant().minus(KEEP));
      }
      return store.putIfAbsent(deviceId, PREFIX + messageId, networkId);
    }
  }

  @Override
  public List<DriverRoutes> routes(Driver driver, DriverRoutesContext context) {
    SandboxDriver sandbox = (SandboxDriver) driver;
    if (!sandbox.controlApi()) {
      return List.of();
    }
    return List.of(
        new SandboxRoutes(
                sandbox.network(), context.devices(), context.phones(), context.timestamps())
            .routes());
  }
}
