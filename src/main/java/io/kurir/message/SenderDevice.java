package io.kurir.message;

import io.kurir.driver.Driver;
import io.kurir.tenant.Device;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The device a sender sends for: read again now and then (another process may switch it off or
 * delete it), and attached to its driver while the sender holds the lease.
 *
 * <p>The device is volatile (accepts read it); attaching is the loop's.
 */
final class SenderDevice {
  private static final Logger log = LoggerFactory.getLogger(DeviceSender.class);

  /** How often the device is read again. */
  static final Duration DEVICE_RECHECK = Duration.ofSeconds(30);

  private volatile Device device; // looked at again now and then: it may be switched off
  private final java.util.function.LongFunction<Device> deviceNow;
  private final Driver driver;
  private long deviceCheckedNanos = System.nanoTime();
  private boolean attached;

  SenderDevice(Device device, java.util.function.LongFunction<Device> deviceNow, Driver driver) {
    this.device = device;
    this.deviceNow = deviceNow;
    this.driver = driver;
  }

  /** The device as last read. */
  Device get() {
    return device;
  }

  /** The device as changed in this process. */
  void set(Device changed) {
    device = changed;
  }

  /**
   * Reads the device again every {@link #DEVICE_RECHECK}: true when it was found deleted (the
   * sender stops).
   */
  boolean refresh() {
    if (System.nanoTime() - deviceCheckedNanos < DEVICE_RECHECK.toNanos()) {
      return false;
    }
    deviceCheckedNanos = System.nanoTime();
    try {
      device = deviceNow.apply(device.id());
    } catch (io.kurir.tenant.TenantException e) {
      if (e.reason() == io.kurir.tenant.TenantException.Reason.NOT_FOUND) {
        // Deleted by another process (./kurir admin on the same file, another node's signal lost).
        log.info("device {}: deleted; its sender stops", device.id());
        return true;
      } else {
        log.warn("device {}: cannot read it again: {}", device.id(), e.toString());
      }
    } catch (RuntimeException e) {
      log.warn("device {}: cannot read it again: {}", device.id(), e.toString());
    }
    return false;
  }

  /** The device is read again at the next {@link #refresh}. */
  void lookAgainNow() {
    deviceCheckedNanos = 0;
  }

  /** Attaches the device to its driver (before anything is sent: it may set its session up). */
  void attach() {
    driver.attach(device.ref());
    attached = true;
  }

  /** Detaches the device from its driver, if attached; a driver's failure is logged. */
  void detach() {
    if (attached) {
      attached = false;
      try {
        driver.detach(device.ref());
      } catch (RuntimeException e) {
        log.warn("driver {}: detach of device {}: {}", driver.name(), device.id(), e.toString());
      }
    }
  }
}
