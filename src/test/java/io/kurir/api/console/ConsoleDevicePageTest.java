package io.kurir.api.console;

import static io.kurir.testing.TestFiles.PNG;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.message.Message;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A device's page shows what happened and sends what the APIs send: messages in and out, marked;
 * the webhook secret where the webhooks are set; a message to a number with an image by URL, to a
 * group, and a schedule, each through the core the APIs use.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleDevicePageTest {
  TestGateway kurir;
  ConsoleClient console;
  HttpServer files;
  String base;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    files = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    files.createContext(
        "/logo.png",
        exchange -> {
          exchange.getResponseHeaders().add("Content-Type", "image/png");
          exchange.sendResponseHeaders(200, PNG.length);
          exchange.getResponseBody().write(PNG);
          exchange.close();
        });
    files.start();
    base = "http://127.0.0.1:" + files.getAddress().getPort();
    kurir = TestGateway.start(dir, "--media.allow-private-addresses=true");
    console = new ConsoleClient(kurir);
  }

  @AfterAll
  void stop() {
    kurir.close();
    files.stop(0);
  }

  private String page(Device d) throws Exception {
    HttpResponse<String> page = console.get("/console/devices/" + d.id());
    assertThat(page.statusCode()).isEqualTo(200);
    return page.body();
  }

  @Test
  void messagesInAndOutAppearMarkedOnTheDevicesPage() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String friend = Numbers.fresh();
    kurir.sendAsync(device, friend, "out to a friend");
    assertThat(kurir.sandbox().injectIncoming(device.id(), friend, "in from a <friend>")).isTrue();
    Eventually.until("the incoming message stored", () -> kurir.storedIncoming(device.id()) == 1);

    String page = page(device);
    String messages = page.substring(page.indexOf("<h2>Messages in and out</h2>"));
    assertThat(messages)
        .contains("data-testid=\"message-in\"")
        .contains("data-testid=\"message-out\"")
        .contains("in from a &lt;friend&gt;")
        .contains("out to a friend")
        .contains(friend);
    // The newest first: the incoming message came after the sent one.
    assertThat(messages.indexOf("message-in")).isLessThan(messages.indexOf("message-out"));
  }

  @Test
  void theWebhookSecretIsShownWhereTheWebhooksAreSet() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String secret = kurir.gateway().tenants().license(device.licenseId()).webhookSecret();
    String page = page(device);
    String webhooks = page.substring(page.indexOf("<h2>Webhooks</h2>"));
    assertThat(webhooks).contains("data-testid=\"secret-webhook-secret\">" + secret + "<");
    assertThat(webhooks).contains("X-Kurir-Signature");
  }

  @Test
  void anImageByUrlAGroupMessageAndAScheduleAreSentFromTheDevicesPage() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String path = "/console/devices/" + device.id();
    String page = page(device);
    assertThat(page)
        .contains("action=\"" + path + "/send\"")
        .contains("action=\"" + path + "/send-group\"")
        .contains("action=\"" + path + "/schedule\"");

    // An image by URL, with a caption.
    String to = Numbers.fresh();
    HttpResponse<String> image =
        console.post(
            path + "/send", "to", to, "kind", "image", "url", base + "/logo.png", "text", "Logo");
    assertThat(image.statusCode()).isEqualTo(303);
    assertThat(image.headers().firstValue("Location").orElseThrow()).contains("/console/messages/");
    Eventually.until("the image arrived", () -> kurir.sandbox().inbox(to).size() == 1);
    InboxEntry arrived = kurir.sandbox().inbox(to).getFirst();
    assertThat(arrived.kind()).isEqualTo("image");
    assertThat(arrived.text()).isEqualTo("Logo");
    assertThat(arrived.mediaBytes()).isEqualTo((long) PNG.length);

    // To a group of the device.
    String member = Numbers.fresh();
    String group = Numbers.digits(device.number()) + "-1600000001";
    kurir.sandbox().createGroup(group, "Kelas 8B", List.of(device.number(), member));
    HttpResponse<String> toGroup =
        console.post(path + "/send-group", "group", group, "text", "Halo kelas");
    assertThat(toGroup.statusCode()).isEqualTo(303);
    long id = idIn(toGroup);
    Message sent = kurir.gateway().messages().find(device, id).orElseThrow();
    assertThat(sent.toGroup()).isTrue();
    assertThat(sent.recipient()).isEqualTo(group);
    Eventually.until(
        "the group message arrived",
        () -> kurir.sandbox().inbox(member).stream().anyMatch(m -> m.text().equals("Halo kelas")));
    HttpResponse<String> noGroup = console.post(path + "/send-group", "group", "x", "text", "t");
    assertThat(noGroup.statusCode()).isEqualTo(400);
    assertThat(noGroup.body()).contains("That is not a group id");

    // A schedule for tomorrow, in the operator zone; then one in the past is refused on the page.
    String tomorrow =
        LocalDateTime.now(kurir.gateway().settings().zone())
            .plusDays(1)
            .format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm"));
    HttpResponse<String> scheduled =
        console.post(path + "/schedule", "to", to, "at", tomorrow, "text", "Besok pagi");
    assertThat(scheduled.statusCode()).isEqualTo(303);
    assertThat(scheduled.headers().firstValue("Location")).contains("/console/schedules");
    assertThat(console.get("/console/schedules").body()).contains("Besok pagi");
    HttpResponse<String> past =
        console.post(path + "/schedule", "to", to, "at", "2020-01-01 10:00", "text", "Kemarin");
    assertThat(past.statusCode()).isEqualTo(400);
    assertThat(past.body())
        .contains("That time has passed.")
        .contains("name=\"at\" value=\"2020-01-01 10:00\"");
  }

  private static long idIn(HttpResponse<String> redirect) {
    String location = redirect.headers().firstValue("Location").orElseThrow();
    return Long.parseLong(location.substring(location.lastIndexOf('/') + 1));
  }
}
