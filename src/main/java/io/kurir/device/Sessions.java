package io.kurir.device;

import io.kurir.driver.Driver;
import io.kurir.driver.Drivers;
import io.kurir.tenant.Device;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Device sessions as the API sees them: the state now (from the device's driver), logging out, and
 * the history of changes (from {@link DeviceStates}).
 *
 * <p>Thread-safe.
 */
public final class Sessions {
  /** What a logout did. */
  public enum Logout {
    DONE,
    NOT_PAIRED,
    DRIVER_DOWN
  }

  private final Drivers drivers;
  private final DeviceStates states;
  private final QueueHolds holds;

  /** Sessions whose devices are {@code failed} while their queue is held in {@code holds}. */
  public Sessions(Drivers drivers, DeviceStates states, QueueHolds holds) {
    this.drivers = drivers;
    this.states = states;
    this.holds = holds;
  }

  /**
   * An operator's retry of a device whose queue is held (its network refused the account): the
   * queue resumes and the driver checks again; false when the device was not held.
   */
  public boolean retry(Device device) {
    return holds.resume(device, "an operator retried it");
  }

  /** Why the device's queue is held, if it is. */
  public Optional<String> heldBecause(Device device) {
    return holds.reason(device.id());
  }

  /**
   * The session's state now; empty when the device's driver is not running ({@code port_down}). A
   * device whose queue is held (its network refused the account) is {@code failed}.
   */
  public Optional<DeviceState> state(Device device) {
    if (holds.reason(device.id()).isPresent()) {
      return Optional.of(DeviceState.FAILED);
    }
    Driver driver = drivers.of(device.ref());
    return driver.isRunning() ? Optional.of(stateOf(driver, device)) : Optional.empty();
  }

  /**
   * The state an operator is shown for one device (the Admin API's device, the console's device
   * page): {@code failed} while its sender keeps failing (as recorded, with the reason in its
   * history), whatever its driver says, since the device sends nothing; otherwise the driver's
   * state now, as {@link #state}.
   */
  public Optional<DeviceState> shownState(Device device) {
    if (states.senderStuck(device.id())) {
      return Optional.of(DeviceState.FAILED);
    }
    return state(device);
  }

  /**
   * Whether the device is linked: paired with an account, whether or not its phone is reachable now
   * ({@code online} or {@code offline}), as last recorded; a device whose engine cannot be reached
   * ({@code port_down}) is linked when it was before the engine went away (see {@link
   * DeviceStates#linked}). The recorded state, not the driver's: asking an engine's driver is an
   * HTTP call, and a send must not make one per device.
   */
  public boolean linked(Device device) {
    return states.linked(List.of(device.id())).contains(device.id());
  }

  /**
   * The primary device of a license, for callers that name no device (the legacy {@code
   * /v2.0/send-message}): the first created of {@code devices} that is enabled and linked; when
   * none is linked, the first created enabled one, whose queue keeps the message until it is
   * linked. Empty when every device is switched off. Creation order, not the order given, decides:
   * a linked device created later must not take over because a list was sorted otherwise. One read
   * for the whole list, not one per device.
   */
  public Optional<Device> primaryOf(List<Device> devices) {
    List<Device> enabled =
        devices.stream()
            .filter(d -> !d.disabled())
            .sorted(Comparator.comparing(Device::createdAt).thenComparingLong(Device::id))
            .toList();
    Set<Long> linked = states.linked(enabled.stream().map(Device::id).toList());
    return enabled.stream()
        .filter(d -> linked.contains(d.id()))
        .findFirst()
        .or(() -> enabled.stream().findFirst());
  }

  /**
   * Why the device's driver cannot be asked now (see {@link Driver#downReason}), for operators:
   * what cannot be reached, and what to do.
   */
  public String downReason(Device device) {
    return drivers.of(device.ref()).downReason();
  }

  /**
   * Brings every stored state in line with what the drivers report now, as a gateway starts: a
   * session that did not survive the restart (the sandbox keeps its sessions in memory) is recorded
   * as ended, with that reason, instead of being shown as online. A device whose queue is held
   * stays {@code failed} with its hold's reason whatever its driver says (a Cloud API driver
   * reports a configured number online): only a resume ends the hold.
   */
  public void reconcile(List<Device> devices) {
    Map<Long, DeviceState> stored = states.all();
    for (Device device : devices) {
      Optional<String> held = holds.reason(device.id());
      if (held.isPresent()) {
        if (stored.getOrDefault(device.id(), DeviceState.NONE) != DeviceState.FAILED) {
          states.record(device.id(), DeviceState.FAILED, held.get());
        }
        continue;
      }
      Driver driver = drivers.of(device.ref());
      if (!driver.isRunning()) {
        continue;
      }
      DeviceState now = stateOf(driver, device);
      if (stored.getOrDefault(device.id(), DeviceState.NONE) != now) {
        states.record(device.id(), now, "found " + now.wireName() + " when the gateway started");
      }
    }
  }

  /** What {@code generate_qr} can show. */
  public sealed interface Pairing {
    /** The device is paired already: log out first. */
    record AlreadyPaired() implements Pairing {}

    /** The device's driver is not running. */
    record DriverDown() implements Pairing {}

    /** The driver cannot pair this device. */
    record Unavailable() implements Pairing {}

    /** A QR code to scan, as a PNG data URL, and the payload it encodes. */
    record Code(String payload, String pngDataUrl) implements Pairing {}
  }

  public Pairing pairing(Device device) {
    Driver driver = drivers.of(device.ref());
    if (!driver.isRunning()) {
      return new Pairing.DriverDown();
    }
    DeviceState state = stateOf(driver, device);
    if (state == DeviceState.ONLINE || state == DeviceState.OFFLINE) {
      return new Pairing.AlreadyPaired();
    }
    Optional<String> code = driver.pairingCode(device.ref());
    if (code.isPresent()) {
      return new Pairing.Code(code.get(), QrCodes.pngDataUrl(code.get()));
    }
    // A driver whose devices are linked without a code (an API token) links the device again
    // when asked for one: it is then paired, as far as the caller is concerned.
    DeviceState now = stateOf(driver, device);
    return now == DeviceState.ONLINE || now == DeviceState.OFFLINE
        ? new Pairing.AlreadyPaired()
        : new Pairing.Unavailable();
  }

  /**
   * Why a pairing code for {@code device} could not be scanned in this set-up (see {@link
   * Driver#pairingObstacle}); empty when it can be, or when there is nothing to pair (the driver is
   * down, the device is paired).
   */
  public Optional<String> pairingObstacle(Device device) {
    Driver driver = drivers.of(device.ref());
    if (!driver.isRunning()) {
      return Optional.empty();
    }
    DeviceState state = stateOf(driver, device);
    if (state == DeviceState.ONLINE || state == DeviceState.OFFLINE) {
      return Optional.empty();
    }
    return driver.pairingObstacle(device.ref());
  }

  /** What a request for a link code (a pairing code typed on the phone) gave. */
  public sealed interface LinkCode {
    record AlreadyPaired() implements LinkCode {}

    record DriverDown() implements LinkCode {}

    /** The driver has no such code, or none now. */
    record Unavailable() implements LinkCode {}

    record Code(String code) implements LinkCode {}
  }

  /** A code that links the device's number when typed on its phone, instead of the QR code. */
  public LinkCode linkCode(Device device) {
    Driver driver = drivers.of(device.ref());
    if (!driver.isRunning()) {
      return new LinkCode.DriverDown();
    }
    DeviceState state = stateOf(driver, device);
    if (state == DeviceState.ONLINE || state == DeviceState.OFFLINE) {
      return new LinkCode.AlreadyPaired();
    }
    return driver
        .linkCode(device.ref())
        .<LinkCode>map(LinkCode.Code::new)
        .orElse(new LinkCode.Unavailable());
  }

  public Logout logout(Device device) {
    Driver driver = drivers.of(device.ref());
    if (!driver.isRunning()) {
      return Logout.DRIVER_DOWN;
    }
    return driver.logout(device.ref()) ? Logout.DONE : Logout.NOT_PAIRED;
  }

  /** The driver's state of {@code device}, as the core's. */
  private static DeviceState stateOf(Driver driver, Device device) {
    return DeviceState.of(driver.state(device.ref()));
  }

  public DeviceStates states() {
    return states;
  }
}
