package io.kurir.driver.waha;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeWaha;
import io.kurir.testing.FakeWahaSending.Engine;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * On each of WAHA's engines, whose send replies and group lists differ (WEBJS an id object, NOWEB
 * Baileys' {@code key.id} and no top-level id, GOWS whatsmeow's {@code JID}/{@code Name} groups): a
 * message's delivered and read are recorded, a group is found by its name, and the group's
 * per-member acks ({@code message.ack.group}, subscribed by Kurir) move its message on.
 */
class WahaEngineFlavoursTest {
  static final String GROUP = "120363025982934543@g.us";

  @TempDir Path dir;

  static Device paired(WahaFixture f, String number) {
    Device device = f.newDevice(number, Map.of());
    String name = "kurir-" + device.id();
    f.awaitSession(name, "SCAN_QR_CODE");
    f.waha.scan(name, number.substring(1));
    Eventually.until("online", () -> f.eco(device, "/api/qr_status").equals("online"));
    return device;
  }

  @ParameterizedTest
  @EnumSource(Engine.class)
  void receiptsAreRecordedAndGroupsFoundByNameOnEveryEngine(Engine engine) {
    try (WahaFixture f = new WahaFixture(dir)) {
      f.waha.sending().engine(engine);
      Device device = paired(f, "+6281100008601");
      long id = f.sendAsync(device, "6281100008609", "halo");
      f.awaitState(device, id, MessageState.SENT);
      FakeWaha.Sent sent = f.waha.sent().getFirst();
      assertThat(f.networkId(id)).as("the id acks name the message by").contains(sent.id());
      assertThat(f.waha.ack(sent.id(), 2, "DEVICE")).isEqualTo(200);
      f.awaitState(device, id, MessageState.DELIVERY);
      assertThat(f.waha.ack(sent.id(), 3, "READ")).isEqualTo(200);
      f.awaitState(device, id, MessageState.READ);

      f.waha.group(GROUP, "Toko Maju", "6281100008601", "6281100008602", "6281100008603");
      String queued =
          f.eco(device, "/api/async_send_group", "group_name", "Toko Maju", "message", "Halo grup");
      assertThat(queued).as(queued).matches("\\d+");
      long toGroup = Long.parseLong(queued);
      f.awaitState(device, toGroup, MessageState.SENT);
      FakeWaha.Sent groupSent = f.waha.sent().getLast();
      assertThat(groupSent.body().path("chatId").asText()).isEqualTo(GROUP);

      // Kurir's webhook takes the per-member acks, so the engine posts them.
      var hook = f.waha.session("kurir-" + device.id()).config().path("webhooks").get(0);
      assertThat(hook.path("events").toString()).contains("\"message.ack.group\"");
      assertThat(f.waha.ackGroup(groupSent.id(), "6281100008602@c.us", 2, "DEVICE")).isEqualTo(200);
      f.awaitState(device, toGroup, MessageState.DELIVERY);
      assertThat(f.waha.ackGroup(groupSent.id(), "231876543210987@lid", 3, "READ")).isEqualTo(200);
      f.awaitState(device, toGroup, MessageState.READ);
    }
  }
}
