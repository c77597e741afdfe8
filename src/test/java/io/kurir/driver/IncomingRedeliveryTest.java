package io.kurir.driver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.Partner;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.testing.TestTables;
import io.kurir.testing.WebhookReceiver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A network that did not see its delivery of an incoming message acknowledged delivers it again,
 * with the same network id: the gateway stores it once, answers it once (auto-reply) and pushes it
 * once (incoming webhook). Another id is another message, even with the same text.
 */
class IncomingRedeliveryTest {
  static final String SECRET = "reseller-secret-0123456789abcdef";

  @TempDir Path dir;

  private static long replyTo(TestGateway kurir, long deviceId, String networkId) {
    return TestTables.of(kurir).inboundOf(deviceId).stream()
        .filter(r -> r.networkId().equals(java.util.Optional.of(networkId)))
        .findFirst()
        .orElseThrow()
        .replyMessageId()
        .orElseThrow();
  }

  /** A gateway with a paired device whose license answers "harga" and pushes what arrives. */
  private static Device deviceWithBotAndWebhook(TestGateway kurir, WebhookReceiver receiver) {
    var tenants = kurir.gateway().tenants();
    Partner partner = tenants.createPartner("Reseller", "", "reseller", SECRET);
    License license = tenants.createLicense(partner.id(), "Toko", "", null, List.of());
    Device device = tenants.createDevice(license.id(), "+6281100007301", "sandbox");
    kurir.sandbox().pair(device.id(), device.number());
    Reply bot =
        kurir.post(
            "/v4.0/wa_partner/add_bot",
            "license="
                + license.code()
                + "&bot_keyword=harga&bot_response=Mulai+10rb&bot_type=match",
            "application/x-www-form-urlencoded",
            "Authorization",
            "Basic "
                + Base64.getEncoder()
                    .encodeToString(("reseller:" + SECRET).getBytes(StandardCharsets.UTF_8)));
    assertThat(bot.status()).as(bot.body()).isEqualTo(200);
    Reply hook =
        kurir.postForm(
            "/v2.0/webhook",
            "license="
                + license.code()
                + "&no_wa=6281100007301&action=set&url="
                + receiver.url("/in"));
    assertThat(hook.status()).as(hook.body()).isEqualTo(200);
    return device;
  }

  /**
   * Waits until the message with network id {@code last} (text {@code lastText}) was answered and
   * pushed. Replies and webhook events of one device go out in order, so whatever an earlier
   * message (or a redelivery) caused has arrived by then.
   */
  private static void awaitAnsweredAndPushed(
      TestGateway kurir,
      WebhookReceiver receiver,
      Device device,
      String customer,
      String last,
      String lastText) {
    long reply = replyTo(kurir, device.id(), last);
    Eventually.until(
        last + " answered",
        () -> kurir.sandbox().inbox(customer).stream().anyMatch(e -> e.messageId() == reply));
    Eventually.until(
        last + " pushed",
        () ->
            receiver.ofEvent("message.incoming").stream()
                .anyMatch(r -> r.json().get("message").asText().equals(lastText)));
  }

  @Test
  void aRedeliveryIsStoredAnsweredAndPushedOnlyOnce() {
    try (WebhookReceiver receiver = new WebhookReceiver();
        TestGateway kurir = TestGateway.start(dir, "--media.allow-private-addresses=true")) {
      Device device = deviceWithBotAndWebhook(kurir, receiver);
      String customer = Numbers.fresh();

      assertThat(kurir.sandbox().injectIncoming(device.id(), customer, "harga", "WAMID-1"))
          .isTrue();
      assertThat(kurir.storedIncoming(device.id()))
          .as("stored before the driver is answered")
          .isOne();
      assertThat(kurir.sandbox().injectIncoming(device.id(), customer, "harga", "WAMID-1"))
          .isTrue();
      assertThat(kurir.storedIncoming(device.id())).as("the redelivery is dropped").isOne();

      assertThat(kurir.sandbox().injectIncoming(device.id(), customer, "HARGA", "WAMID-2"))
          .isTrue();
      assertThat(kurir.storedIncoming(device.id()))
          .as("another id is another message")
          .isEqualTo(2);

      awaitAnsweredAndPushed(kurir, receiver, device, customer, "WAMID-2", "HARGA");
      assertThat(kurir.sandbox().inbox(customer))
          .extracting(InboxEntry::text)
          .containsExactly("Mulai 10rb", "Mulai 10rb");
      assertThat(receiver.ofEvent("message.incoming"))
          .extracting(
              r -> r.json().get("message").asText() + "/" + r.json().get("keyword").asText())
          .containsExactly("harga/harga", "HARGA/harga");
    }
  }

  @Test
  void redeliveriesArrivingAtOnceAreStoredAnsweredAndPushedOnlyOnce() throws Exception {
    try (WebhookReceiver receiver = new WebhookReceiver();
        TestGateway kurir = TestGateway.start(dir, "--media.allow-private-addresses=true");
        ExecutorService pool = Executors.newFixedThreadPool(8)) {
      Device device = deviceWithBotAndWebhook(kurir, receiver);
      String customer = Numbers.fresh();
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Boolean>> deliveries = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        deliveries.add(
            pool.submit(
                () -> {
                  go.await();
                  return kurir.sandbox().injectIncoming(device.id(), customer, "harga", "WAMID-C");
                }));
      }
      go.countDown();
      for (Future<Boolean> d : deliveries) {
        assertThat(d.get()).as("every delivery is acknowledged").isTrue();
      }
      assertThat(kurir.storedIncoming(device.id())).isOne();

      kurir.sandbox().injectIncoming(device.id(), customer, "HARGA", "WAMID-D");
      awaitAnsweredAndPushed(kurir, receiver, device, customer, "WAMID-D", "HARGA");
      assertThat(kurir.sandbox().inbox(customer)).hasSize(2);
      assertThat(receiver.ofEvent("message.incoming"))
          .extracting(r -> r.json().get("message").asText())
          .containsExactly("harga", "HARGA");
    }
  }
}
