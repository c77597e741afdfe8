package io.kurir.driver;

import static org.assertj.core.api.Assertions.assertThat;

import io.javalin.config.RoutesConfig;
import io.kurir.api.ApiException;
import io.kurir.api.ErrorStyle;
import io.kurir.api.RequestFields;
import io.kurir.api.RouteTable;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.ScriptedDriver;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.testing.WebhookReceiver;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A driver's own HTTP routes ({@code /drivers/<name>/…}) are served on the gateway's port beside
 * the API families. The test driver's inbound webhook does what a network's webhook route must:
 * finds the device through the routes' context, hands the message to the core, and answers only
 * once it is stored, so a network that redelivers (same id) gets it dropped.
 */
class DriverRoutesTest {
  @TempDir Path dir;
  TestGateway kurir;
  WebhookReceiver receiver;

  /** The routes of the test driver "hooky": a ping, and an inbound webhook in its own format. */
  record HookyRoutes(ScriptedDriver driver, DriverRoutesContext context) implements RouteTable {
    @Override
    public String pathPrefix() {
      return "/drivers/hooky/";
    }

    @Override
    public ErrorStyle errorStyle() {
      return ErrorStyle.KURIR_JSON;
    }

    @Override
    public void addTo(RoutesConfig r) {
      r.get("/drivers/hooky/ping", ctx -> ctx.result("pong"));
      r.post(
          "/drivers/hooky/inbound",
          ctx -> {
            RequestFields f = RequestFields.of(ctx);
            String to = context.phones().normalize(f.required("to")).orElseThrow();
            Device device =
                context.tenants().devices().stream()
                    .filter(d -> d.number().equals(to) && d.driver().equals(driver.name()))
                    .findFirst()
                    .orElseThrow(() -> new ApiException(404, "not_found", "no device " + to));
            driver
                .listener()
                .incoming(
                    IncomingMessage.text(
                        device.id(),
                        f.required("id"),
                        context.phones().normalize(f.required("from")).orElseThrow(),
                        f.required("text"),
                        Clock.systemUTC().instant()));
            ctx.json(Map.of("stored", f.required("id")));
          });
    }
  }

  final ScriptedDriver driver = new ScriptedDriver("hooky", false);

  @BeforeEach
  void start() {
    receiver = new WebhookReceiver();
    kurir =
        TestGateway.start(
            dir,
            Clock.systemUTC(),
            new ScriptedDriver.Factory(
                driver, List.of(), (d, context) -> List.of(new HookyRoutes(d, context))),
            "--media.allow-private-addresses=true");
  }

  @AfterEach
  void stop() {
    kurir.close();
    receiver.close();
  }

  private Reply inbound(String to, String id, String from, String text) {
    return kurir.postJson(
        "/drivers/hooky/inbound",
        "{\"to\":\""
            + to
            + "\",\"id\":\""
            + id
            + "\",\"from\":\""
            + from
            + "\",\"text\":\""
            + text
            + "\"}");
  }

  @Test
  void theDriversRoutesAreServedOnTheGatewaysPort() {
    Reply ping = kurir.get("/drivers/hooky/ping");
    assertThat(ping.status()).isEqualTo(200);
    assertThat(ping.body()).isEqualTo("pong");
    assertThat(kurir.url("/drivers/hooky/ping"))
        .startsWith("http://127.0.0.1:" + kurir.gateway().port() + "/");

    Reply unknown = kurir.get("/drivers/hooky/nothing-here");
    assertThat(unknown.status()).isEqualTo(404);
    assertThat(unknown.body()).contains("\"error\":\"not_found\"");
  }

  @Test
  void anInboundWebhookIsAnsweredOnceStoredAndARedeliveryIsDropped() {
    Device device = kurir.newDevice("+6281100007401", "hooky", Map.of());
    var license = kurir.licenseOf(device);
    kurir.postForm(
        "/v2.0/webhook",
        "license=" + license.code() + "&no_wa=6281100007401&action=set&url=" + receiver.url("/in"));
    String customer = Numbers.fresh();

    Reply first = inbound("0811-0000-7401", "HK-1", customer, "first");
    assertThat(first.status()).as(first.body()).isEqualTo(200);
    assertThat(kurir.storedIncoming(device.id())).as("stored when the network is answered").isOne();

    Reply again = inbound("+6281100007401", "HK-1", customer, "first");
    assertThat(again.status()).as("a redelivery is acknowledged too").isEqualTo(200);
    assertThat(kurir.storedIncoming(device.id())).as("and dropped").isOne();

    assertThat(inbound("6281100007401", "HK-2", customer, "second").status()).isEqualTo(200);
    assertThat(kurir.storedIncoming(device.id())).isEqualTo(2);

    Eventually.until(
        "the second one pushed",
        () ->
            receiver.ofEvent("message.incoming").stream()
                .anyMatch(r -> r.json().get("message").asText().equals("second")));
    assertThat(receiver.ofEvent("message.incoming"))
        .extracting(r -> r.json().get("message").asText())
        .containsExactly("first", "second");

    Reply nobody = inbound("+6281100007499", "HK-3", customer, "lost");
    assertThat(nobody.status()).isEqualTo(404);
  }
}
