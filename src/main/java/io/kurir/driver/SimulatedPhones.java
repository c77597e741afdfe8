package io.kurir.driver;

/**
 * What a driver over a simulated network offers besides sending: a phone of that network that scans
 * the QR code shown for a device now, as a person would with a real phone. The console offers it as
 * a button (the demo, tests); a driver of a real network does not implement it.
 */
public interface SimulatedPhones {

  /** Scans the code shown for {@code device} now: true when that linked the device. */
  boolean scanCurrentCode(DeviceRef device);
}
