package io.kurir.contact;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.ContactDirectory;
import io.kurir.driver.ContactDirectory.CheckedNumber;
import io.kurir.driver.ContactId;
import io.kurir.driver.MemoryContactDirectory;
import io.kurir.testing.TestGateway;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gateway's directory (the database's) and the in-memory one drivers get outside a gateway
 * answer alike: phones in the core's E.164 ({@code +62…}) whether taught as {@code 62…} or {@code
 * +62…}, and a network id met without a phone is known (so sendable) on the device that met it.
 */
class ContactDirectoriesAgreeTest {
  static final ContactId LID = ContactId.lid("160958311837878@lid");

  @TempDir Path dir;
  TestGateway kurir;

  @BeforeEach
  void start() {
    kurir = TestGateway.start(dir);
  }

  @AfterEach
  void stop() {
    kurir.close();
  }

  private long device() {
    return kurir.newDevice("+6281100009901", false).id();
  }

  @Test
  void bothAnswerPhonesInTheCoresForm() {
    long d = device();
    check(new ContactIdentities(kurir.gateway().database(), java.time.Clock.systemUTC()), d);
    check(new MemoryContactDirectory(), d);
  }

  @Test
  void bothKnowAnIdMetWithoutAPhoneOnThatDeviceOnly() {
    long d = device();
    met(new ContactIdentities(kurir.gateway().database(), java.time.Clock.systemUTC()), d);
    met(new MemoryContactDirectory(), d);
  }

  private static void check(ContactDirectory c, long d) {
    assertThat(c.phoneOf(d, ContactId.phone("6281100009902"))).contains("+6281100009902");
    c.learn(d, "6281100009903", LID);
    assertThat(c.phoneOf(d, LID)).as(c.getClass().getSimpleName()).contains("+6281100009903");
    assertThat(c.networkIdOf(d, "+6281100009903", ContactId.Kind.LID)).contains(LID);
    assertThat(c.networkIdOf(d, "6281100009903", ContactId.Kind.LID)).contains(LID);
    Instant at = Instant.parse("2026-03-10T03:00:00Z");
    c.recordCheck(d, new CheckedNumber("6281100009904", true, Optional.empty(), at));
    assertThat(c.lastCheck(d, "+6281100009904").map(CheckedNumber::e164))
        .as(c.getClass().getSimpleName())
        .contains("+6281100009904");
    assertThat(c.lastCheck(d, "6281100009904")).isPresent();
  }

  private static void met(ContactDirectory c, long d) {
    ContactId other = ContactId.lid("99887766554433");
    assertThat(c.knows(d, other)).isFalse();
    c.heardFrom(d, other);
    assertThat(c.knows(d, other)).as(c.getClass().getSimpleName()).isTrue();
    assertThat(c.knows(d + 1000, other)).isFalse();
    assertThat(c.phoneOf(d, other)).isEmpty();
    c.learn(d, "+6281100009905", LID);
    assertThat(c.knows(d, LID)).isTrue();
  }
}
