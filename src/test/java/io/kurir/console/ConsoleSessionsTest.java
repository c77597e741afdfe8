package io.kurir.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.phone.PhoneNumbers;
import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.tenant.License;
import io.kurir.tenant.Partner;
import io.kurir.tenant.Tenants;
import io.kurir.testing.TestDatabases;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Console sign-ins live in the database: every node sharing it knows them, until they expire. */
class ConsoleSessionsTest {
  @TempDir Path dir;
  final SettableClock clock = new SettableClock(Instant.parse("2026-03-10T03:00:00Z"));
  Database node1;
  Database node2;

  @BeforeEach
  void open() {
    node1 = TestDatabases.open(TestDatabases.at(dir.resolve("kurir.db")));
    node2 = TestDatabases.open(TestDatabases.at(dir.resolve("kurir.db")));
  }

  @AfterEach
  void close() {
    node2.close();
    node1.close();
  }

  @Test
  void aSessionOpenedOnOneNodeIsKnownOnAnotherUntilItIsClosed() {
    ConsoleSessions first = new ConsoleSessions(node1, clock);
    ConsoleSessions second = new ConsoleSessions(node2, clock);
    ConsoleSessions.Opened opened = first.open(Optional.empty());

    ConsoleSessions.Session seen = second.find(opened.cookieValue()).orElseThrow();
    assertThat(seen.operator()).isTrue();
    assertThat(seen.csrfMatches(opened.session().csrf())).isTrue();
    assertThat(seen.csrfMatches("something else")).isFalse();
    assertThat(seen.csrfMatches(null)).isFalse();
    // The database keeps a hash: the cookie's value itself is nowhere in it.
    assertThat(seen.tokenHash()).isNotEqualTo(opened.cookieValue());

    second.close(opened.cookieValue());
    assertThat(first.find(opened.cookieValue())).isEmpty();
  }

  @Test
  void aCustomersSessionNamesTheirLicenseAndEveryOneExpires() {
    Tenants tenants =
        new Tenants(
            node1,
            new IdGenerator(clock, 0),
            clock,
            ZoneId.of("Asia/Jakarta"),
            new PhoneNumbers("ID"),
            io.kurir.tenant.DeviceDrivers.of(io.kurir.driver.standard.StandardDrivers.catalog()));
    Partner p = tenants.createPartner("P", "");
    License l = tenants.createLicense(p.id(), "L", "", null, List.of());
    ConsoleSessions sessions = new ConsoleSessions(node1, clock);
    ConsoleSessions.Opened customer = sessions.open(Optional.of(l.id()));
    ConsoleSessions.Opened operator = sessions.open(Optional.empty());

    ConsoleSessions.Session seen = sessions.find(customer.cookieValue()).orElseThrow();
    assertThat(seen.operator()).isFalse();
    assertThat(seen.licenseId()).contains(l.id());
    assertThat(sessions.find(operator.cookieValue()).orElseThrow().operator()).isTrue();
    assertThat(sessions.find("made-up")).isEmpty();
    assertThat(sessions.find("")).isEmpty();

    clock.advance(ConsoleSessions.LIFETIME.plus(Duration.ofSeconds(1)));
    assertThat(sessions.find(customer.cookieValue())).isEmpty();
    assertThat(sessions.find(operator.cookieValue())).isEmpty();
  }

  @Test
  void failedSignInsAreLimitedPerAddressForAWhile() {
    SignInLimiter limiter = new SignInLimiter(clock);
    for (int i = 0; i < SignInLimiter.MAX_FAILURES; i++) {
      assertThat(limiter.tryAttempt("192.0.2.1")).as("try " + i).isTrue();
    }
    assertThat(limiter.tryAttempt("192.0.2.1")).isFalse();
    assertThat(limiter.tryAttempt("192.0.2.2")).isTrue();
    clock.advance(SignInLimiter.WINDOW);
    assertThat(limiter.tryAttempt("192.0.2.1")).isTrue();
  }

  @Test
  void aSignInThatSucceedsGivesItsTryBack() {
    SignInLimiter limiter = new SignInLimiter(clock);
    for (int i = 0; i < 3 * SignInLimiter.MAX_FAILURES; i++) {
      assertThat(limiter.tryAttempt("192.0.2.4")).as("sign-in " + i).isTrue();
      limiter.succeeded("192.0.2.4");
    }
  }

  @Test
  void aLimitedAddressGetsOneTryBackEveryNinetySeconds() {
    SignInLimiter limiter = new SignInLimiter(clock);
    for (int i = 0; i < SignInLimiter.MAX_FAILURES; i++) {
      assertThat(limiter.tryAttempt("192.0.2.3")).isTrue();
    }
    Duration oneTry = SignInLimiter.WINDOW.dividedBy(SignInLimiter.MAX_FAILURES);
    clock.advance(oneTry.minusSeconds(1));
    assertThat(limiter.tryAttempt("192.0.2.3")).isFalse();
    clock.advance(Duration.ofSeconds(1));
    assertThat(limiter.tryAttempt("192.0.2.3")).isTrue();
    assertThat(limiter.tryAttempt("192.0.2.3")).isFalse();
    // Whole again a window later: ten more tries.
    clock.advance(SignInLimiter.WINDOW);
    for (int i = 0; i < SignInLimiter.MAX_FAILURES; i++) {
      assertThat(limiter.tryAttempt("192.0.2.3")).as("try " + i).isTrue();
    }
    assertThat(limiter.tryAttempt("192.0.2.3")).isFalse();
  }

  /** Tries taken at once from many threads: exactly the bucket's, however they interleave. */
  @Test
  void parallelTriesGetNoMoreThanTheLimit() throws Exception {
    SignInLimiter limiter = new SignInLimiter(clock);
    java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(60);
    java.util.concurrent.atomic.AtomicInteger allowed =
        new java.util.concurrent.atomic.AtomicInteger();
    List<Thread> threads = new java.util.ArrayList<>();
    for (int i = 0; i < 60; i++) {
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      together.await();
                    } catch (Exception e) {
                      throw new IllegalStateException(e);
                    }
                    if (limiter.tryAttempt("203.0.113.5")) {
                      allowed.incrementAndGet();
                    }
                  }));
    }
    for (Thread t : threads) {
      t.join();
    }
    assertThat(allowed.get()).isEqualTo(SignInLimiter.MAX_FAILURES);
  }
}
