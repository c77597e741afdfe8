package io.kurir.driver.cloud;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.DriverFactory;
import io.kurir.message.Message;
import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeGraphApi;
import io.kurir.testing.TestGateway;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A gateway whose cloud driver talks to a {@link FakeGraphApi}, with one cloud device. */
final class CloudFixture implements AutoCloseable {
  static final String NUMBER = "+6281100007401";

  final SettableClock clock = TestGateway.settableClock();
  final FakeGraphApi graph = new FakeGraphApi(clock);
  final TestGateway kurir;
  final Device device;

  CloudFixture(Path dir, String... flags) {
    this(dir, null, flags);
  }

  /** As {@link #CloudFixture(Path, String...)}, with the cloud driver that {@code driver} makes. */
  CloudFixture(Path dir, DriverFactory driver, String... flags) {
    List<String> all = new ArrayList<>();
    all.add("--drivers.cloud.graph-url=" + graph.graphUrl());
    all.add("--drivers.cloud.pacing.min-gap=0ms");
    all.add("--media.allow-private-addresses=true");
    all.addAll(List.of(flags));
    kurir =
        driver == null
            ? TestGateway.start(dir, clock, all.toArray(String[]::new))
            : TestGateway.start(dir, clock, driver, all.toArray(String[]::new));
    graph.webhookTo(kurir.url(CloudWebhookRoutes.PATH));
    // The account's approved templates, each with one body parameter (the message's text).
    graph.approveTemplate("otp_code", "id", 1);
    graph.approveTemplate("otp_code", "en_US", 1);
    graph.approveTemplate("order_update", "id", 1);
    device =
        kurir.newDevice(
            NUMBER,
            "cloud",
            Map.of(
                "phone-number-id", FakeGraphApi.PHONE_NUMBER_ID,
                "access-token", FakeGraphApi.TOKEN,
                "app-secret", FakeGraphApi.APP_SECRET,
                "verify-token", FakeGraphApi.VERIFY_TOKEN));
  }

  /**
   * A new customer who wrote to the device (their 24-hour window open at Meta and at Kurir), as
   * E.164: free-form messages to them go.
   */
  String customer() {
    return graph.customerWrites(io.kurir.testing.Numbers.fresh());
  }

  String body(String to, String text, String... extra) {
    StringBuilder b =
        new StringBuilder("{\"key\":\"")
            .append(device.ecoKey())
            .append("\",\"phone_no\":\"")
            .append(to)
            .append("\",\"message\":\"")
            .append(text)
            .append('"');
    for (int i = 0; i + 1 < extra.length; i += 2) {
      b.append(",\"").append(extra[i]).append("\":\"").append(extra[i + 1]).append('"');
    }
    return b.append('}').toString();
  }

  /** Queues a text; its Kurir id. */
  long sendAsync(String to, String text, String... extra) {
    TestGateway.Reply r = kurir.postJson("/api/async_send_message", body(to, text, extra));
    assertThat(r.body()).as(r.body()).matches("\\d+");
    return Long.parseLong(r.body());
  }

  Message message(long id) {
    return kurir.gateway().messages().find(device, id).orElseThrow();
  }

  void awaitState(long id, MessageState state) {
    Eventually.until("message " + id + " " + state.wireName(), () -> message(id).state() == state);
  }

  Optional<String> networkId(long id) {
    return kurir.networkIdOf(id);
  }

  int storedIncoming() {
    return kurir.storedIncoming(device.id());
  }

  String postEco(String path, String json) {
    return kurir.postJson(path, json).body();
  }

  String key() {
    return "{\"key\":\"" + device.ecoKey() + "\"}";
  }

  @Override
  public void close() {
    try {
      assertThat(graph.violations()).as("what the fake Graph API refused").isEmpty();
    } finally {
      kurir.close();
      graph.close();
    }
  }
}
