package io.kurir.device;

import java.time.Instant;
import java.util.Optional;

/** One change of a device's state. */
public record DeviceEvent(
    long deviceId, DeviceState from, DeviceState to, Optional<String> reason, Instant at) {}
