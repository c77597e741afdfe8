package io.kurir.driver;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A driver's own factory whose drivers report to a {@link RecordingListener} instead of the core:
 * loaded in place of the real one (same name, settings, routes), so the gateway still hosts the
 * driver's webhooks, settings, database and devices, while the {@link DriverContract} reads every
 * event. The driver itself is the real one behind a JDK proxy that swaps the listener given to
 * {@link Driver#start} and passes every other call through unchanged, so the proxy follows the
 * driver interface as it changes.
 */
public final class ListeningDriverFactory implements DriverFactory {
  private final DriverFactory real;
  private final RecordingListener listener;
  private final Map<Driver, Driver> realOf = new ConcurrentHashMap<>();
  private volatile Driver latest;

  public ListeningDriverFactory(DriverFactory real, RecordingListener listener) {
    this.real = real;
    this.listener = listener;
  }

  /** The driver made last (a gateway restarted makes a new one), as the gateway holds it. */
  public Driver driver() {
    Driver d = latest;
    if (d == null) {
      throw new IllegalStateException("no " + real.name() + " driver was made yet");
    }
    return d;
  }

  @Override
  public String name() {
    return real.name();
  }

  @Override
  public List<DriverSetting> settings() {
    return real.settings();
  }

  @Override
  public List<ConfigKey> deviceConfigKeys() {
    return real.deviceConfigKeys();
  }

  @Override
  public Optional<String> checkDeviceConfig(DeviceConfig config) {
    return real.checkDeviceConfig(config);
  }

  @Override
  public List<String> checkSettings(DriverSettings settings, boolean demo, boolean adminTokenSet) {
    return real.checkSettings(settings, demo, adminTokenSet);
  }

  @Override
  public Driver create(DriverContext context) {
    Driver driver = real.create(context);
    InvocationHandler handler =
        (proxy, method, args) -> {
          if (method.getName().equals("start")
              && args != null
              && args.length == 1
              && args[0] instanceof DriverListener) {
            args = new Object[] {listener};
          } else if (method.getDeclaringClass() == Object.class) {
            return switch (method.getName()) {
              case "equals" -> proxy == args[0];
              case "hashCode" -> System.identityHashCode(proxy);
              default -> "listened " + driver;
            };
          }
          try {
            return method.invoke(driver, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        };
    Set<Class<?>> interfaces = new LinkedHashSet<>();
    interfaces.add(Driver.class);
    interfaces.addAll(List.of(driver.getClass().getInterfaces()));
    Driver listened =
        (Driver)
            Proxy.newProxyInstance(
                Driver.class.getClassLoader(), interfaces.toArray(Class<?>[]::new), handler);
    realOf.put(listened, driver);
    latest = listened;
    return listened;
  }

  /** The driver's routes, made for the real driver (a route may need its own class). */
  @Override
  public List<DriverRoutes> routes(Driver driver, DriverRoutesContext context) {
    return real.routes(realOf.getOrDefault(driver, driver), context);
  }
}
