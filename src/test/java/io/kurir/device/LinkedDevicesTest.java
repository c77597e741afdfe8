package io.kurir.device;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.Partner;
import io.kurir.testing.TestGateway;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which devices count as linked for the primary-device rule, read from the recorded states in one
 * query: {@code online}, {@code offline}, and {@code port_down} after one of those (the engine
 * keeps the session while it cannot be reached).
 */
class LinkedDevicesTest {
  @TempDir Path dir;
  TestGateway kurir;
  DeviceStates states;
  License license;

  @BeforeEach
  void start() {
    kurir = TestGateway.start(dir);
    states = kurir.gateway().deviceStates();
    Partner p = kurir.gateway().tenants().createPartner("Partner linked", "p@example.com");
    license = kurir.gateway().tenants().createLicense(p.id(), "Linked", "", null, List.of());
  }

  @AfterEach
  void stop() {
    kurir.close();
  }

  /** A device of the license whose recorded states went through {@code path}, in order. */
  private long device(String number, DeviceState... path) {
    Device d = kurir.gateway().tenants().createDevice(license.id(), number, "sandbox");
    for (DeviceState s : path) {
      states.record(d.id(), s, "test");
    }
    return d.id();
  }

  @Test
  void aDeviceLinkedBeforeItsEngineWentAwayIsStillLinked() {
    long neverLinked = device("+6281100008551", DeviceState.PORT_DOWN);
    long online = device("+6281100008552", DeviceState.ONLINE, DeviceState.PORT_DOWN);
    long offline = device("+6281100008553", DeviceState.OFFLINE, DeviceState.PORT_DOWN);
    long loggedOut =
        device("+6281100008554", DeviceState.ONLINE, DeviceState.NONE, DeviceState.PORT_DOWN);
    long linkedAgain =
        device(
            "+6281100008555",
            DeviceState.PORT_DOWN,
            DeviceState.ONLINE,
            DeviceState.OFFLINE,
            DeviceState.PORT_DOWN);
    long failed = device("+6281100008556", DeviceState.ONLINE, DeviceState.FAILED);
    long plain = device("+6281100008557", DeviceState.OFFLINE);

    assertThat(
            states.linked(
                List.of(neverLinked, online, offline, loggedOut, linkedAgain, failed, plain)))
        .containsExactlyInAnyOrder(online, offline, linkedAgain, plain);
    assertThat(states.linked(List.of())).isEmpty();
  }
}
