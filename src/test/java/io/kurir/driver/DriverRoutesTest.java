package io.kurir.driver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.ScriptedDriver;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.testing.WebhookReceiver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A driver's own HTTP routes ({@code /drivers/<name>/…}), declared as data, are served on the
 * gateway's port beside the API families. The test driver's inbound webhook does what a network's
 * webhook route must: finds the device through the routes' narrow lookup, hands the message to the
 * core, and answers only once it is stored, so a network that redelivers (same id) gets it dropped.
 * The HTTP layer gives a route what it reads (path, query, headers, the raw body, fields), writes
 * its reply as given, guards an operators' route with the admin token, and answers a refusal in
 * Kurir's JSON error style.
 */
class DriverRoutesTest {
  @TempDir Path dir;
  TestGateway kurir;
  WebhookReceiver receiver;

  private static final String[] AUTH = {"Authorization", "Bearer " + TestGateway.ADMIN_TOKEN};

  /** The routes of the test driver "hooky": a ping, an inbound webhook, an echo, a control. */
  static DriverRoutes hookyRoutes(ScriptedDriver driver, DriverRoutesContext context) {
    return new DriverRoutes(
        "hooky",
        "/drivers/hooky/",
        List.of(
            DriverRoute.get("/drivers/hooky/ping", ctx -> DriverReply.text("pong")),
            DriverRoute.post(
                "/drivers/hooky/inbound",
                ctx -> {
                  DriverRequest.Fields f = ctx.fields();
                  String to = context.phones().normalize(f.required("to")).orElseThrow();
                  DeviceRef device =
                      context
                          .devices()
                          .byNumber(to)
                          .filter(d -> d.driver().equals(driver.name()))
                          .orElseThrow(
                              () -> new RouteException(404, "not_found", "no device " + to));
                  driver
                      .listener()
                      .incoming(
                          IncomingMessage.text(
                              device.id(),
                              f.required("id"),
                              context.phones().normalize(f.required("from")).orElseThrow(),
                              f.required("text"),
                              Clock.systemUTC().instant()));
                  return DriverReply.json(Map.of("stored", f.required("id")));
                }),
            DriverRoute.post(
                "/drivers/hooky/echo/{device}",
                ctx -> {
                  long id = Long.parseLong(ctx.pathParam("device"));
                  DeviceRef device =
                      context
                          .devices()
                          .byId(id)
                          .orElseThrow(() -> new RouteException(404, "device_not_found", "none"));
                  String body = new String(ctx.bodyAsBytes(), StandardCharsets.UTF_8);
                  return new DriverReply(
                      202,
                      "text/plain; charset=utf-8",
                      Map.of("X-Hooky-Device", device.number()),
                      (ctx.header("x-hooky-sign") + "|" + ctx.queryParam("q") + "|" + body)
                          .getBytes(StandardCharsets.UTF_8));
                }),
            DriverRoute.post(
                    "/drivers/hooky/control",
                    ctx ->
                        DriverReply.json(
                            Map.of("count", ctx.fields().wholeNumber("count", 9).orElse(0L))))
                .admin()));
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
                driver, List.of(), (d, context) -> List.of(hookyRoutes(d, context))),
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

  @Test
  void aRouteReadsThePathTheQueryTheHeadersAndTheRawBodyAndItsReplyIsWrittenAsGiven() {
    Device device = kurir.newDevice("+6281100007402", "hooky", Map.of());
    Reply reply =
        kurir.post(
            "/drivers/hooky/echo/" + device.id() + "?q=42",
            "{\"raw\": true }",
            "application/json",
            "X-Hooky-Sign",
            "abc");
    assertThat(reply.status()).isEqualTo(202);
    assertThat(reply.contentType()).startsWith("text/plain");
    assertThat(reply.body()).isEqualTo("abc|42|{\"raw\": true }");

    Reply unknown = kurir.post("/drivers/hooky/echo/999999", "", null);
    assertThat(unknown.status()).isEqualTo(404);
    assertThat(unknown.body())
        .as("a refusal in Kurir's JSON error style")
        .contains("\"error\":\"device_not_found\"")
        .contains("\"message\":\"none\"");
  }

  @Test
  void anOperatorsRouteNeedsTheAdminTokenAndItsFieldsAreCheckedAsTheApisAre() {
    Reply anonymous = kurir.postJson("/drivers/hooky/control", "{\"count\":3}");
    assertThat(anonymous.status()).isEqualTo(401);
    assertThat(anonymous.body()).contains("invalid_admin_token");

    Reply json = kurir.post("/drivers/hooky/control", "{\"count\":3}", "application/json", AUTH);
    assertThat(json.status()).as(json.body()).isEqualTo(200);
    assertThat(json.body()).isEqualTo("{\"count\":3}");
    Reply form =
        kurir.post(
            "/drivers/hooky/control", "count=2.5", "application/x-www-form-urlencoded", AUTH);
    assertThat(form.body()).isEqualTo("{\"count\":3}");
    Reply bad = kurir.post("/drivers/hooky/control", "{\"count\":10}", "application/json", AUTH);
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.body()).contains("\"error\":\"count_not_valid\"");
    Reply broken = kurir.post("/drivers/hooky/control", "{\"count\":", "application/json", AUTH);
    assertThat(broken.status()).isEqualTo(400);
    assertThat(broken.body()).contains("\"error\":\"malformed_json\"");
  }
}
