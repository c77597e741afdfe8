package io.kurir.testing;

import io.kurir.driver.ConfigKey;
import io.kurir.driver.DeviceConfig;
import io.kurir.driver.DeviceRef;
import io.kurir.driver.DeviceState;
import io.kurir.driver.Driver;
import io.kurir.driver.DriverContext;
import io.kurir.driver.DriverFactory;
import io.kurir.driver.DriverListener;
import io.kurir.driver.DriverRoutes;
import io.kurir.driver.DriverRoutesContext;
import io.kurir.driver.DriverSetting;
import io.kurir.driver.GroupMembers;
import io.kurir.driver.NumberCheck;
import io.kurir.driver.OutgoingMessage;
import io.kurir.driver.SendOutcome;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.LongFunction;

/**
 * A driver written for tests: it records what the core asks of it (attach, send, detach, in order),
 * answers each send with what the test scripted for its recipient (else {@code Sent} with the
 * network id {@code NET-<message id>}), can hold sends until the test lets them go, and hands the
 * test the listener the core gave it, so the test reports receipts and outcomes as a network would.
 *
 * <p>Thread-safe.
 */
public final class ScriptedDriver implements Driver {
  /** One call of {@link #send}, with the device's configuration as the driver read it then. */
  public record Call(long deviceId, OutgoingMessage message, DeviceConfig config) {}

  private final String name;
  private final boolean deduplicates;
  private final List<String> events = new CopyOnWriteArrayList<>();
  private final List<Call> sends = new CopyOnWriteArrayList<>();
  private final Map<String, Deque<Function<OutgoingMessage, SendOutcome>>> scripts =
      new ConcurrentHashMap<>();
  private volatile DriverListener listener;
  private volatile boolean connected = true;
  private final AtomicInteger attachFailures = new AtomicInteger();
  private volatile String attachFailure = "the engine cannot be reached";
  private volatile CountDownLatch gate = new CountDownLatch(0);
  private volatile LongFunction<DeviceConfig> configOf = id -> DeviceConfig.EMPTY;

  private final Clock clock;

  public ScriptedDriver(String name, boolean deduplicates) {
    this(name, deduplicates, Clock.systemUTC());
  }

  /** A driver whose default answer is {@code Sent} at the time of {@code clock}. */
  public ScriptedDriver(String name, boolean deduplicates, Clock clock) {
    this.name = name;
    this.deduplicates = deduplicates;
    this.clock = clock;
  }

  /** The network id the default answer gives message {@code id}. */
  public static String networkIdOf(long id) {
    return "NET-" + id;
  }

  /** The next send to {@code recipient} is answered by {@code outcome} (in the order scripted). */
  public ScriptedDriver then(String recipient, Function<OutgoingMessage, SendOutcome> outcome) {
    scripts.computeIfAbsent(recipient, r -> new ArrayDeque<>());
    Deque<Function<OutgoingMessage, SendOutcome>> queue = scripts.get(recipient);
    synchronized (queue) {
      queue.addLast(outcome);
    }
    return this;
  }

  /** Sends wait, once recorded, until {@link #release} is called. */
  public void holdSends() {
    gate = new CountDownLatch(1);
  }

  public void release() {
    gate.countDown();
  }

  /** The next {@code times} attaches throw, as when the network's engine cannot be reached. */
  public void failAttach(int times) {
    failAttach(times, "the engine cannot be reached");
  }

  /** The next {@code times} attaches throw an {@link IllegalStateException} saying {@code why}. */
  public void failAttach(int times, String why) {
    attachFailure = why;
    attachFailures.set(times);
  }

  public void setConnected(boolean connected) {
    this.connected = connected;
  }

  /** The listener the core gave at start: what a network's events go to. */
  public DriverListener listener() {
    DriverListener l = listener;
    if (l == null) {
      throw new IllegalStateException("the driver was not started");
    }
    return l;
  }

  /** A device's configuration as the driver's context gives it now, secrets included. */
  public DeviceConfig configOf(long deviceId) {
    return configOf.apply(deviceId);
  }

  /** {@code attach <device>}, {@code send <message>}, {@code detach <device>}, in order. */
  public List<String> events() {
    return List.copyOf(events);
  }

  public List<Call> sends() {
    return List.copyOf(sends);
  }

  /** The ids of the messages sent, in the order the driver got them. */
  public List<Long> sentIds() {
    return sends.stream().map(c -> c.message().id()).toList();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void start(DriverListener newListener) {
    this.listener = newListener;
  }

  @Override
  public void attach(DeviceRef device) {
    if (attachFailures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      events.add("attach-failed " + device.id());
      throw new IllegalStateException(attachFailure);
    }
    events.add("attach " + device.id());
  }

  @Override
  public void detach(DeviceRef device) {
    events.add("detach " + device.id());
  }

  @Override
  public boolean isConnected(DeviceRef device) {
    return connected;
  }

  @Override
  public boolean deduplicates() {
    return deduplicates;
  }

  @Override
  public SendOutcome send(DeviceRef device, OutgoingMessage message) {
    sends.add(new Call(device.id(), message, configOf.apply(device.id())));
    events.add("send " + message.id());
    try {
      if (!gate.await(120, TimeUnit.SECONDS)) { // a hang guard: tests release what they hold
        throw new IllegalStateException("a held send was never released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new SendOutcome.Failed("interrupted");
    }
    Deque<Function<OutgoingMessage, SendOutcome>> queue = scripts.get(message.recipient());
    Function<OutgoingMessage, SendOutcome> scripted = null;
    if (queue != null) {
      synchronized (queue) {
        scripted = queue.pollFirst();
      }
    }
    return scripted != null
        ? scripted.apply(message)
        : SendOutcome.Sent.of(networkIdOf(message.id()), clock.instant());
  }

  @Override
  public NumberCheck checkNumber(DeviceRef device, String e164) {
    return NumberCheck.EXISTS;
  }

  @Override
  public DeviceState state(DeviceRef device) {
    return connected ? DeviceState.ONLINE : DeviceState.OFFLINE;
  }

  @Override
  public Optional<String> pairingCode(DeviceRef device) {
    return Optional.empty();
  }

  @Override
  public boolean logout(DeviceRef device) {
    return false;
  }

  @Override
  public Optional<String> groupIdByName(DeviceRef device, String groupName) {
    return Optional.empty();
  }

  @Override
  public GroupMembers groupMembers(DeviceRef device, String groupId) {
    return new GroupMembers.NotFound();
  }

  @Override
  public void close() {
    gate.countDown();
  }

  /**
   * Makes {@code driver}: devices may name it, with the configuration keys given, and its routes
   * (made from the driver and the routes' context) are served under {@code /drivers/<name>/}.
   */
  public record Factory(
      ScriptedDriver driver,
      List<ConfigKey> keys,
      BiFunction<ScriptedDriver, DriverRoutesContext, List<DriverRoutes>> routeTables)
      implements DriverFactory {

    public Factory(ScriptedDriver driver, ConfigKey... keys) {
      this(driver, List.of(keys), (d, c) -> List.of());
    }

    @Override
    public String name() {
      return driver.name();
    }

    @Override
    public List<DriverSetting> settings() {
      return List.of();
    }

    @Override
    public List<ConfigKey> deviceConfigKeys() {
      return keys;
    }

    @Override
    public Driver create(DriverContext context) {
      driver.configOf = context.configOf();
      return driver;
    }

    @Override
    public List<DriverRoutes> routes(Driver made, DriverRoutesContext context) {
      return routeTables.apply((ScriptedDriver) made, context);
    }
  }
}
