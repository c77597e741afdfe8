package io.kurir.contact;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.ContactDirectory.CheckedNumber;
import io.kurir.driver.ContactId;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestTables;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The database's contact directory: network ids mapped to one contact per device, the last number
 * check per device and number, and whether a device has talked to a number, from its messages.
 */
class ContactIdentitiesTest {
  @TempDir Path dir;
  TestGateway kurir;
  ContactIdentities contacts;

  @BeforeEach
  void start() {
    kurir = TestGateway.start(dir);
    contacts = new ContactIdentities(kurir.gateway().database(), java.time.Clock.systemUTC());
  }

  @AfterEach
  void stop() {
    kurir.close();
  }

  @Test
  void aNetworkIdLearnedForOneDeviceNamesAPhoneOnThatDeviceOnly() {
    Device one = kurir.newDevice(Numbers.fresh(), true);
    Device other = kurir.newDevice(Numbers.fresh(), true);
    String phone = Numbers.fresh();
    ContactId lid = ContactId.lid("88812345678901@lid");
    ContactId bsuid = ContactId.bsuid("US.13491208655302741918");

    assertThat(contacts.phoneOf(one.id(), lid)).isEmpty();
    contacts.learn(one.id(), phone, lid);
    contacts.learn(one.id(), Numbers.digits(phone), bsuid); // digits alone are the same phone
    contacts.learn(one.id(), phone, lid); // again: nothing changes

    assertThat(contacts.phoneOf(one.id(), lid)).contains(phone);
    assertThat(contacts.phoneOf(one.id(), bsuid)).contains(phone);
    assertThat(contacts.networkIdOf(one.id(), phone, ContactId.Kind.LID)).contains(lid);
    assertThat(contacts.networkIdOf(one.id(), phone, ContactId.Kind.BSUID)).contains(bsuid);
    assertThat(contacts.phoneOf(other.id(), lid))
        .as("a LID means something to one device")
        .isEmpty();
    assertThat(contacts.networkIdOf(other.id(), phone, ContactId.Kind.LID)).isEmpty();
    assertThat(contacts.phoneOf(one.id(), ContactId.phone(Numbers.digits(phone)))).contains(phone);

    String later = Numbers.fresh();
    contacts.learn(one.id(), later, lid);
    assertThat(contacts.phoneOf(one.id(), lid)).as("a later phone replaces").contains(later);
  }

  @Test
  void onlyANetworkIdTheDeviceHasMetIsSendable() {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    Device other = kurir.newDevice(Numbers.fresh(), true);
    ContactId lid = ContactId.lid("77712345678901");

    assertThat(contacts.sendableAddress(device.id(), lid.address())).isEmpty();
    assertThat(contacts.sendableAddress(device.id(), "not an id")).isEmpty();
    assertThat(contacts.sendableAddress(device.id(), Numbers.digits(Numbers.fresh())))
        .as("a phone is not a network id")
        .isEmpty();

    contacts.heardFrom(device.id(), lid);
    assertThat(contacts.sendableAddress(device.id(), " " + lid.address() + " "))
        .contains(lid.address());
    assertThat(contacts.sendableAddress(other.id(), lid.address())).isEmpty();

    String phone = Numbers.fresh();
    contacts.learn(device.id(), phone, lid);
    assertThat(contacts.sendableAddress(device.id(), lid.address()))
        .as("the phone once known")
        .contains(phone);
    contacts.heardFrom(device.id(), lid); // heard from again by the id alone: the phone stays
    assertThat(contacts.phoneOf(device.id(), lid)).contains(phone);
  }

  @Test
  void theLastCheckOfANumberIsKeptPerDevice() {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    Device other = kurir.newDevice(Numbers.fresh(), true);
    String phone = Numbers.fresh();
    Instant first = Instant.parse("2026-11-01T00:00:00Z");

    assertThat(contacts.lastCheck(device.id(), phone)).isEmpty();
    contacts.recordCheck(device.id(), new CheckedNumber(phone, false, Optional.empty(), first));
    assertThat(contacts.lastCheck(device.id(), phone))
        .contains(new CheckedNumber(phone, false, Optional.empty(), first));

    CheckedNumber again =
        new CheckedNumber(
            phone, true, Optional.of(Numbers.digits(phone) + "@c.us"), first.plusSeconds(60));
    contacts.recordCheck(device.id(), again);
    assertThat(contacts.lastCheck(device.id(), phone)).contains(again);
    assertThat(contacts.lastCheck(other.id(), phone)).isEmpty();
  }

  @Test
  void aDeviceHasTalkedToANumberOnceAMessageWentOutOrCameIn() {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String customer = Numbers.fresh();
    String writer = Numbers.fresh();
    assertThat(contacts.hasTalkedTo(device.id(), customer)).isFalse();

    // A message still waiting is no conversation yet (a number check runs before it goes).
    kurir.sandbox().setDeviceOnline(device.id(), false);
    assertThat(kurir.sendAsync(device, customer, "Tagihan").status()).isEqualTo(200);
    assertThat(contacts.hasTalkedTo(device.id(), customer)).isFalse();
    kurir.sandbox().setDeviceOnline(device.id(), true);
    Eventually.until("sent", () -> contacts.hasTalkedTo(device.id(), customer));
    assertThat(kurir.sandbox().inbox(customer)).hasSize(1);

    assertThat(contacts.hasTalkedTo(device.id(), writer)).isFalse();
    assertThat(kurir.sandbox().injectIncoming(device.id(), writer, "Halo")).isTrue();
    assertThat(contacts.hasTalkedTo(device.id(), writer)).as("stored before answered").isTrue();
    assertThat(contacts.hasTalkedTo(device.id(), Numbers.digits(writer))).isTrue();
    assertThat(contacts.hasTalkedTo(kurir.newDevice(Numbers.fresh(), true).id(), writer)).isFalse();
  }

  @Test
  void aPhoneLearnedLaterFillsInTheRowsThatShowedTheNetworkId() {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String phone = Numbers.fresh();
    ContactId lid = ContactId.lid("66612345678901");
    contacts.heardFrom(device.id(), lid);
    var db = kurir.gateway().database().jdbi();
    db.useHandle(
        h -> {
          h.execute(
              "INSERT INTO inbound_message (id, device_id, sender, body, received_at, sender_id)"
                  + " VALUES (1, ?, ?, 'Halo', 0, ?)",
              device.id(),
              lid.address(),
              lid.address());
        });
    assertThat(contacts.hasTalkedTo(device.id(), phone)).isFalse();

    contacts.learn(device.id(), phone, lid);

    TestTables.InboundRow row = TestTables.of(kurir).inbound().getFirst();
    String shown = row.sender() + "/" + row.senderId().orElse(null);
    assertThat(shown).isEqualTo(phone + "/" + lid.address());
    assertThat(contacts.hasTalkedTo(device.id(), phone)).isTrue();
  }
}
