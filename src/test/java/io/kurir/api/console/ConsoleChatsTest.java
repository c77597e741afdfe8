package io.kurir.api.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.IncomingMessage;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestFiles;
import io.kurir.testing.TestGateway;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A device's conversations in the console over plain HTTP: the chat list, a chat with each kind
 * drawn (an image through the console's media route, a document as a download, a location, a
 * contact card, a reaction), a reply sent through the send command, the media route's refusals.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleChatsTest {
  TestGateway kurir;
  ConsoleClient console;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    kurir = TestGateway.start(dir);
    console = new ConsoleClient(kurir);
  }

  @AfterAll
  void stop() {
    kurir.close();
  }

  @Test
  void aChatShowsEveryKindAndTakesAReply() throws Exception {
    Device d = kurir.newDevice(Numbers.fresh(), true);
    Device other = kurir.newDevice(Numbers.fresh(), true);
    String from = Numbers.fresh();
    incoming(d, "{\"from\":\"" + from + "\",\"name\":\"Ani\",\"message\":\"Hello <b>shop</b>\"}");
    receive(d, from, "image", "image/png", "shelf.png");
    receive(d, from, "document", "application/pdf", "price-list.pdf");
    incoming(
        d,
        "{\"from\":\""
            + from
            + "\",\"type\":\"location\",\"location\":{\"latitude\":-6.2,"
            + "\"longitude\":106.8,\"name\":\"Monas\"}}");
    incoming(
        d,
        "{\"from\":\""
            + from
            + "\",\"type\":\"contacts\",\"contacts\":[{\"name\":{"
            + "\"formatted_name\":\"Budi Santoso\",\"first_name\":\"Budi\"},"
            + "\"phones\":[{\"phone\":\"+6281200000001\"}]}]}");
    incoming(
        d,
        "{\"from\":\""
            + from
            + "\",\"type\":\"reaction\",\"reaction\":{\"message_id\":\"wamid.X\","
            + "\"emoji\":\"❤\"}}");
    Eventually.until("six received", () -> kurir.storedIncoming(d.id()) == 6);

    String base = "/console/devices/" + d.id();
    String list = ok(console.get(base + "/chats"));
    assertThat(list).contains("Ani").contains(from).contains("Reacted ❤");
    String chatPath = base + "/chats/" + URLEncoder.encode(from, StandardCharsets.UTF_8);
    assertThat(list).contains(chatPath.replace("+", "%2B").substring(base.length()));

    String chat = ok(console.get(chatPath));
    assertThat(chat).contains("Hello &lt;b&gt;shop&lt;/b&gt;").doesNotContain("<b>shop");
    assertThat(chat).contains("Location: Monas (-6.2, 106.8)");
    assertThat(chat).contains("Contact card: Budi Santoso");
    assertThat(chat).contains("Reacted ❤ to message wamid.X");
    Matcher img = Pattern.compile("<img src=\"([^\"]+)\"").matcher(chat);
    assertThat(img.find()).as(chat).isTrue();
    HttpResponse<String> image = console.get(img.group(1));
    assertThat(image.statusCode()).isEqualTo(200);
    assertThat(image.headers().firstValue("Content-Type").orElse("")).startsWith("image/png");
    Matcher file =
        Pattern.compile("<a href=\"([^\"]+)\" download=\"[^\"]*price-list.pdf\"").matcher(chat);
    assertThat(file.find()).as(chat).isTrue();
    assertThat(console.get(file.group(1)).statusCode()).isEqualTo(200);
    // Another device's page does not reach this device's files.
    String id = img.group(1).substring(img.group(1).lastIndexOf('/') + 1);
    assertThat(console.get("/console/devices/" + other.id() + "/media/" + id).statusCode())
        .isEqualTo(404);

    HttpResponse<String> sent = console.post(chatPath + "/reply", "text", "Yes, we are open");
    assertThat(sent.statusCode()).as(sent.body()).isEqualTo(303);
    Eventually.until(
        "the reply at the phone",
        () ->
            kurir.sandbox().inbox(from).stream()
                .anyMatch(m -> m.text().equals("Yes, we are open")));
    assertThat(ok(console.get(chatPath))).contains("Yes, we are open");
    HttpResponse<String> empty = console.post(chatPath + "/reply", "text", " ");
    assertThat(empty.statusCode()).isEqualTo(400);
    assertThat(empty.body()).contains("Fill in the reply");
    assertThat(console.get(base + "/chats/" + Numbers.fresh()).statusCode()).isEqualTo(404);
    assertThat(console.get("/console/devices/12345/chats").statusCode()).isEqualTo(404);
    assertThat(console.get(base + "/media/not-a-message").statusCode()).isEqualTo(404);
    // Opened and answered: nothing unread.
    assertThat(ok(console.get(base + "/chats"))).doesNotContain("data-testid=\"unread\"");
  }

  @Test
  void aChatReadUnderItsLidStaysReadOnceThePhoneIsKnown() throws Exception {
    Device d = kurir.newDevice(Numbers.fresh(), true);
    String phone = Numbers.fresh();
    String lid = io.kurir.driver.sandbox.SandboxNetwork.lidOf(phone).address();
    incoming(d, "{\"from\":\"" + phone + "\",\"message\":\"first\",\"as\":\"lid\"}");
    Eventually.until("stored", () -> kurir.storedIncoming(d.id()) == 1);
    String base = "/console/devices/" + d.id();
    assertThat(ok(console.get(base + "/chats/" + URLEncoder.encode(lid, StandardCharsets.UTF_8))))
        .contains("first");

    incoming(
        d, "{\"from\":\"" + phone + "\",\"message\":\"second\",\"as\":\"lid\",\"reveal\":true}");
    Eventually.until("stored", () -> kurir.storedIncoming(d.id()) == 2);
    String list = ok(console.get(base + "/chats"));
    assertThat(list).contains(phone).doesNotContain(lid);
    Matcher unread = Pattern.compile("data-testid=\"unread\">(\\d+)<").matcher(list);
    assertThat(unread.find()).as(list).isTrue();
    assertThat(unread.group(1)).as("only what came after the chat was opened").isEqualTo("1");
  }

  private static String ok(HttpResponse<String> r) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return r.body();
  }

  private void receive(Device d, String from, String kind, String mime, String name)
      throws Exception {
    Path file = kurir.dir().resolve("data").resolve("media").resolve(d.id() + "-" + name);
    Files.createDirectories(file.getParent());
    Files.write(file, kind.equals("image") ? TestFiles.PNG : TestFiles.PDF);
    kurir
        .sandbox()
        .injectIncoming(
            new IncomingMessage(
                d.id(),
                Optional.of("F-" + d.id() + "-" + name),
                from,
                Optional.empty(),
                "",
                Optional.of(new IncomingMessage.Media(kind, mime, file)),
                java.time.Instant.now()));
  }

  private void incoming(Device device, String json) {
    TestGateway.Reply r =
        kurir.post(
            "/sandbox/devices/" + device.id() + "/incoming",
            json,
            "application/json",
            "Authorization",
            "Bearer " + TestGateway.ADMIN_TOKEN);
    assertThat(r.status()).as(r.body()).isEqualTo(200);
  }
}
