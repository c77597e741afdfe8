package io.kurir.api.eco;

import static io.kurir.testing.TestFiles.PNG;
import static io.kurir.testing.TestFiles.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.message.FailureReason;
import io.kurir.message.Message;
import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code async_} media forms answer the id at once and fetch the file when the message's turn
 * comes: a URL that does not answer holds no caller, and a device's messages keep their order.
 */
class AsyncMediaTest {
  @TempDir Path dir;
  TestGateway kurir;
  Device device;
  HttpServer files;
  String base;
  final CountDownLatch release = new CountDownLatch(1);
  final AtomicInteger heldRequests = new AtomicInteger();

  @BeforeEach
  void start() throws IOException {
    files = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    serve("/logo.png", "image/png", PNG);
    serve("/fake.png", "image/png", "<html>not an image</html>".getBytes());
    serve("/big.png", "image/png", bytes(new int[] {0x89, 'P', 'N', 'G'}, 100 * 1024));
    files.createContext(
        "/held.png",
        exchange -> {
          heldRequests.incrementAndGet();
          try {
            release.await(20, TimeUnit.SECONDS); // answers only when the test says so
            exchange.getResponseHeaders().add("Content-Type", "image/png");
            exchange.sendResponseHeaders(200, PNG.length);
            exchange.getResponseBody().write(PNG);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          exchange.close();
        });
    files.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    files.start();
    base = "http://127.0.0.1:" + files.getAddress().getPort();
    kurir =
        TestGateway.start(
            dir,
            "--media.allow-private-addresses=true", // the file server is on loopback
            "--media.max-size=64KB",
            "--media.fetch-timeout=10s");
    device = kurir.newDevice();
  }

  @AfterEach
  void stop() {
    release.countDown();
    kurir.close();
    files.stop(0);
  }

  private String send(String path, String to, String url, String caption) {
    return kurir
        .postJson(
            path,
            "{\"key\":\""
                + device.ecoKey()
                + "\",\"phone_no\":\""
                + to
                + "\",\"url\":\""
                + url
                + "\",\"message\":\""
                + caption
                + "\"}")
        .body();
  }

  private Message stored(String id) {
    return kurir.gateway().messages().find(device, Long.parseLong(id)).orElseThrow();
  }

  @Test
  void theIdIsAnsweredBeforeTheFileIsFetchedAndTheDevicesOrderHolds() {
    String to = Numbers.fresh();
    String first = kurir.postJson("/api/async_send_message", text(to, "before")).body();
    // The file server holds this answer until released: the caller is answered meanwhile.
    String image = send("/api/async_send_image_url", to, base + "/held.png", "the picture");
    assertThat(image).matches("\\d+");
    assertThat(release.getCount()).as("answered while the file server still holds").isOne();
    String after = kurir.postJson("/api/async_send_message", text(to, "after")).body();

    Eventually.until("the fetch has started", () -> heldRequests.get() == 1);
    Eventually.until("the message before is sent", () -> kurir.sandbox().inbox(to).size() == 1);
    assertThat(stored(after).state()).as("behind the image").isEqualTo(MessageState.PENDING);

    release.countDown();
    Eventually.until("all three sent", () -> kurir.sandbox().inbox(to).size() == 3);
    assertThat(kurir.sandbox().inbox(to))
        .extracting(InboxEntry::text)
        .containsExactly("before", "the picture", "after");
    assertThat(kurir.sandbox().inbox(to).get(1).mediaBytes()).isEqualTo((long) PNG.length);
    Eventually.until("the first recorded as sent", () -> stored(first).state().wentOut());
  }

  @Test
  void aFileThatCannotBeUsedFailsItsMessageWithTheReason() {
    String to = Numbers.fresh();
    String fake = send("/api/async_send_image_url", to, base + "/fake.png", "x");
    String big = send("/api/async_send_file_url", to, base + "/big.png", "x");
    String missing = send("/api/async_send_file_url", to, base + "/missing.pdf", "x");
    String good = send("/api/async_send_image_url", to, base + "/logo.png", "good");

    Eventually.until("the good one sent", () -> kurir.sandbox().inbox(to).size() == 1);
    Eventually.until("all decided", () -> stored(missing).state() == MessageState.FAILED);
    assertThat(stored(fake).reason()).contains(FailureReason.MEDIA_NOT_IMAGE);
    assertThat(stored(big).reason()).contains(FailureReason.MEDIA_TOO_LARGE);
    assertThat(stored(missing).reason()).contains(FailureReason.MEDIA_UNREACHABLE);
    Eventually.until("the good one recorded as sent", () -> stored(good).state().wentOut());
    assertThat(
            kurir
                .postJson(
                    "/api/status_msg_id",
                    "{\"key\":\"" + device.ecoKey() + "\",\"msg_id\":\"" + fake + "\"}")
                .body())
        .isEqualTo("phone_offline");
  }

  @Test
  void aFetchCutOffByAStopResumesAfterTheRestart() {
    String to = Numbers.fresh();
    kurir.sandbox().setDeviceOnline(device.id(), false); // nothing is fetched yet
    String image = send("/api/async_send_image_url", to, base + "/logo.png", "later");
    String group =
        kurir
            .postJson(
                "/api/async_send_file_url_group_id",
                "{\"key\":\""
                    + device.ecoKey()
                    + "\",\"group_id\":\"6281100000000-1\",\"url\":\""
                    + base
                    + "/logo.png\"}")
            .body();
    assertThat(image).matches("\\d+");
    assertThat(group).matches("\\d+");
    assertThat(stored(image).media()).as("not fetched while the device is away").isEmpty();
    kurir.restart();
    kurir.sandbox().setDeviceOnline(device.id(), true);
    Eventually.until("fetched and sent", () -> kurir.sandbox().inbox(to).size() == 1);
    assertThat(kurir.sandbox().inbox(to).getFirst().mediaBytes()).isEqualTo((long) PNG.length);
  }

  private String text(String to, String message) {
    return "{\"key\":\""
        + device.ecoKey()
        + "\",\"phone_no\":\""
        + to
        + "\",\"message\":\""
        + message
        + "\"}";
  }

  private void serve(String path, String type, byte[] body) {
    files.createContext(
        path,
        exchange -> {
          exchange.getResponseHeaders().add("Content-Type", type);
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
  }
}
