package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.store.Database;
import io.kurir.testing.TestDatabases;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sender's lease alone, on a real database and the settable clock: taken when free, refused while
 * another node's is alive, taken over once it ran out (the crash rule then applies), given up at a
 * stop so that another node takes it at once.
 */
class DeviceLeaseTest {
  private static final long DEVICE = 42;
  private static final Duration TTL = Duration.ofSeconds(30);

  @TempDir Path dir;
  private Database db;
  private DeviceOwnership ownership;
  private final SettableClock clock = new SettableClock(Instant.parse("2026-03-02T10:00:00Z"));

  @BeforeEach
  void open() {
    db = TestDatabases.open(TestDatabases.at(dir.resolve("k.db")));
    Leases leases = new Leases(db, "node-a", TTL);
    ownership =
        new DeviceOwnership(
            db,
            leases,
            clock,
            new DeviceOwnership.Senders() {
              @Override
              public Map<Long, DeviceSender> all() {
                return Map.of();
              }

              @Override
              public Optional<DeviceSender> start(long deviceId) {
                return Optional.empty();
              }
            },
            () -> {});
  }

  @AfterEach
  void close() {
    ownership.close();
    db.close();
  }

  private DeviceLease lease(String node) {
    return new DeviceLease(DEVICE, new Leases(db, node, TTL), ownership, Duration.ofSeconds(5));
  }

  @Test
  void aFreeLeaseIsTakenAndHeldUntilLetGo() {
    DeviceLease lease = lease("node-a");
    assertThat(lease.holds()).isFalse();
    assertThat(lease.tryTake(clock.instant())).isEqualTo(Leases.Take.FREE);
    lease.heldGuarded();
    assertThat(lease.holds()).isTrue();
    assertThat(lease.stillHeld()).isTrue();
    assertThat(lease.owner()).isEqualTo("node-a");

    lease.handOff();
    assertThat(lease.letGoAsked()).isTrue();
    assertThat(lease.lostSeen()).isFalse();
    lease.lost();
    assertThat(lease.lostSeen()).isTrue();
    lease.droppedGuarded();
    assertThat(lease.holds()).isFalse();
    assertThat(lease.letGoAsked()).isFalse();
  }

  @Test
  void anotherNodesLiveLeaseIsRefusedAndTakenOverOnceItRanOut() {
    assertThat(new Leases(db, "node-b", TTL).acquire(DEVICE, clock.instant()))
        .isEqualTo(Leases.Take.FREE);
    DeviceLease lease = lease("node-a");
    assertThat(lease.tryTake(clock.instant())).as("node-b's, alive").isNull();
    assertThat(lease.tryTake(clock.instant())).as("later tries wait for an offer").isNull();

    clock.advance(TTL.plusSeconds(1));
    lease.tryAtOnce(); // as when the device is switched on here
    assertThat(lease.tryTake(clock.instant()))
        .as("node-b's ran out: what it left sending follows the crash rule")
        .isEqualTo(Leases.Take.LEFT_BEHIND);
    assertThat(lease.stillHeld()).isTrue();
  }

  @Test
  void aStopReleasesTheLeaseSoThatAnotherNodeTakesItAtOnce() throws Exception {
    DeviceLease lease = lease("node-a");
    assertThat(lease.released()).as("nothing to release yet").isDone();
    lease.tryTake(clock.instant());
    lease.heldGuarded();
    lease.releaseAtStop();
    lease.released().get(10, TimeUnit.SECONDS);

    assertThat(lease.stillHeld()).isFalse();
    assertThat(new Leases(db, "node-b", TTL).acquire(DEVICE, clock.instant()))
        .as("released cleanly: free, nothing to recover")
        .isEqualTo(Leases.Take.FREE);
  }

  @Test
  void aPauseGivesTheLeaseUp() {
    DeviceLease lease = lease("node-a");
    lease.tryTake(clock.instant());
    lease.heldGuarded();
    lease.giveUpForPause();
    assertThat(lease.holds()).isFalse();
    lease.awaitRelease(); // waits for the release's commit, behind the pause's
    assertThat(lease.stillHeld()).isFalse();
  }
}
