package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.ConfigKey;
import io.kurir.driver.Driver;
import io.kurir.driver.DriverCatalog;
import io.kurir.driver.DriverContext;
import io.kurir.driver.DriverFactory;
import io.kurir.driver.DriverListener;
import io.kurir.driver.DriverSetting;
import io.kurir.driver.Drivers;
import io.kurir.driver.NumberCheck;
import io.kurir.driver.OutgoingMessage;
import io.kurir.driver.SendOutcome;
import io.kurir.phone.PhoneNumbers;
import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.tenant.Device;
import io.kurir.tenant.DeviceDrivers;
import io.kurir.tenant.Tenants;
import io.kurir.testing.Eventually;
import io.kurir.testing.TestDatabases;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A driver that misbehaves must cost one message, not the device's whole queue. */
class FaultySenderTest {
  @TempDir Path dir;

  /** Throws an Error on its first send, then behaves. */
  static final class FaultyDriver implements Driver {
    final AtomicInteger calls = new AtomicInteger();
    final List<Long> delivered = new CopyOnWriteArrayList<>();

    @Override
    public String name() {
      return "faulty";
    }

    @Override
    public void start(DriverListener listener) {}

    @Override
    public boolean deduplicates() {
      return false;
    }

    @Override
    public boolean isConnected(io.kurir.driver.DeviceRef device) {
      return true;
    }

    @Override
    public SendOutcome send(io.kurir.driver.DeviceRef device, OutgoingMessage message) {
      if (calls.getAndIncrement() == 0) {
        throw new StackOverflowError("a driver bug");
      }
      delivered.add(message.id());
      return SendOutcome.Sent.of(null, Instant.now());
    }

    @Override
    public NumberCheck checkNumber(io.kurir.driver.DeviceRef device, String e164) {
      return NumberCheck.EXISTS;
    }

    @Override
    public io.kurir.driver.DeviceState state(io.kurir.driver.DeviceRef device) {
      return io.kurir.driver.DeviceState.ONLINE;
    }

    @Override
    public java.util.Optional<String> pairingCode(io.kurir.driver.DeviceRef device) {
      return java.util.Optional.empty();
    }

    @Override
    public boolean logout(io.kurir.driver.DeviceRef device) {
      return false;
    }

    @Override
    public java.util.Optional<String> groupIdByName(io.kurir.driver.DeviceRef device, String name) {
      return java.util.Optional.empty();
    }

    @Override
    public io.kurir.driver.GroupMembers groupMembers(
        io.kurir.driver.DeviceRef device, String groupId) {
      return new io.kurir.driver.GroupMembers.NotFound();
    }

    @Override
    public void close() {}
  }

  /** Makes {@link FaultyDriver}s: devices may name it. */
  record FaultyFactory(FaultyDriver driver) implements DriverFactory {
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
      return List.of();
    }

    @Override
    public Driver create(DriverContext context) {
      return driver;
    }
  }

  @Test
  void anErrorThrownByTheDriverFailsOneSendAndTheQueueGoesOn() {
    FaultyDriver driver = new FaultyDriver();
    Clock clock = Clock.systemUTC();
    try (Database db = TestDatabases.open(TestDatabases.at(dir.resolve("k.db")))) {
      IdGenerator ids = new IdGenerator(clock, 0);
      Tenants tenants =
          new Tenants(
              db,
              ids,
              clock,
              ZoneId.of("Asia/Jakarta"),
              new PhoneNumbers("ID"),
              DeviceDrivers.of(new DriverCatalog(List.of(new FaultyFactory(driver)))));
      var partner = tenants.createPartner("P", "");
      var license = tenants.createLicense(partner.id(), "L", "", null, List.of());
      Device device = tenants.createDevice(license.id(), "+6281100000042", "faulty");
      try (Messages messages =
          new Messages(
              db,
              ids,
              clock,
              new Drivers(driver),
              tenants,
              new RetryPolicy(Duration.ofSeconds(1), 0),
              StatusHook.NONE,
              MediaFetch.NONE,
              "node-0",
              Messages.Wiring.NONE)) {
        List<Message> accepted =
            messages.accept(
                device,
                new SendRequest(
                    List.of(Recipient.number("+6281234500001"), Recipient.number("+6281234500002")),
                    "text",
                    "x",
                    "test",
                    false,
                    false,
                    Duration.ZERO));

        Eventually.until("the second one sent", () -> driver.delivered.size() == 1);
        Eventually.until(
            "the first one recorded as failed",
            () ->
                messages.find(device, accepted.get(0).id()).orElseThrow().state()
                    == MessageState.FAILED);
        assertThat(driver.delivered).containsExactly(accepted.get(1).id());
        assertThat(messages.find(device, accepted.get(0).id()).orElseThrow().reason())
            .contains(FailureReason.DRIVER_ERROR);
      }
    }
  }
}
