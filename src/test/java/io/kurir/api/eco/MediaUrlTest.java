package io.kurir.api.eco;

import static io.kurir.testing.TestFiles.JPEG;
import static io.kurir.testing.TestFiles.PDF;
import static io.kurir.testing.TestFiles.PNG;
import static io.kurir.testing.TestFiles.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Image and file sends by URL against a real HTTP server on loopback serving a PNG, a JPEG, a PDF,
 * an oversized file, a hanging endpoint, a redirect and a non-image labelled image/png.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MediaUrlTest {

  TestGateway kurir;
  Device device;
  HttpServer files;
  String base;
  final CountDownLatch release = new CountDownLatch(1);

  @BeforeAll
  void start(@TempDir Path dir) throws IOException {
    files = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    serve("/logo.png", "image/png", PNG);
    serve("/photo", "image/jpeg", JPEG); // no extension in the URL
    serve("/invoice.pdf", "application/pdf", PDF);
    serve("/big.png", "image/png", bytes(new int[] {0x89, 'P', 'N', 'G'}, 100 * 1024));
    serve("/fake.png", "image/png", "<html>not an image</html>".getBytes());
    files.createContext(
        "/slow.png",
        exchange -> {
          try {
            release.await(60, TimeUnit.SECONDS); // hangs until the test is over
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          exchange.close();
        });
    files.createContext(
        "/moved",
        exchange -> {
          exchange.getResponseHeaders().add("Location", "/logo.png");
          exchange.sendResponseHeaders(302, -1);
          exchange.close();
        });
    files.setExecutor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
    files.start();
    base = "http://127.0.0.1:" + files.getAddress().getPort();
    kurir =
        TestGateway.start(
            dir,
            "--media.allow-private-addresses=true", // the file server is on loopback
            "--media.max-size=64KB",
            "--media.fetch-timeout=1s");
    device = kurir.newDevice();
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

  @AfterAll
  void stop() {
    release.countDown();
    kurir.close();
    files.stop(0);
  }

  private Reply send(String path, String to, String url, String caption) {
    String urlField = url == null ? "" : ",\"url\":\"" + url + "\"";
    return kurir.postJson(
        path,
        "{\"key\":\""
            + device.ecoKey()
            + "\",\"phone_no\":\""
            + to
            + "\",\"message\":\""
            + caption
            + "\""
            + urlField
            + "}");
  }

  @Test
  void imagesAndFilesArriveWithTheirCaptionNameTypeAndSize() {
    String to = Numbers.fresh();
    assertThat(send("/api/send_image_url", to, base + "/logo.png", "Logo baru").body())
        .isEqualTo("success");
    assertThat(send("/api/send_image_url", to, base + "/photo", "Foto").body())
        .isEqualTo("success");
    assertThat(send("/api/send_file_url", to, base + "/invoice.pdf", "Tagihan").body())
        .isEqualTo("success");
    String id = send("/api/async_send_image_url", to, base + "/moved", "via redirect").body();
    assertThat(id).matches("\\d+");
    assertThat(send("/api/async_send_file_url", to, base + "/photo", "").body()).matches("\\d+");

    Eventually.until("five arrived", () -> kurir.sandbox().inbox(to).size() == 5);
    var inbox = kurir.sandbox().inbox(to);
    assertThat(inbox)
        .extracting(InboxEntry::kind)
        .containsExactly("image", "image", "file", "image", "file");
    assertThat(inbox)
        .extracting(InboxEntry::text)
        .containsExactly("Logo baru", "Foto", "Tagihan", "via redirect", "");
    assertThat(inbox)
        .extracting(InboxEntry::mediaName)
        .containsExactly("logo.png", "photo.jpg", "invoice.pdf", "logo.png", "photo.jpg");
    assertThat(inbox)
        .extracting(InboxEntry::mediaType)
        .containsExactly("image/png", "image/jpeg", "application/pdf", "image/png", "image/jpeg");
    assertThat(inbox)
        .extracting(InboxEntry::mediaBytes)
        .containsExactly(200L, 300L, 400L, 200L, 300L);
  }

  @Test
  void everyFailureGetsTheContractsString() {
    String to = Numbers.fresh();
    assertThat(send("/api/send_image_url", to, null, "no url").body()).isEqualTo("url_wrong");
    assertThat(send("/api/send_image_url", to, "not a url", "x").body()).isEqualTo("url_wrong");
    assertThat(send("/api/send_image_url", to, "ftp://127.0.0.1/logo.png", "x").body())
        .isEqualTo("url_wrong");
    assertThat(send("/api/send_image_url", to, base + "/big.png", "x").body())
        .isEqualTo("file_more_than_64KB");
    assertThat(send("/api/send_file_url", to, base + "/big.png", "x").body())
        .isEqualTo("file_more_than_64KB");
    assertThat(send("/api/send_image_url", to, base + "/fake.png", "x").body())
        .isEqualTo("image_not_found 64KB");
    // A URL that cannot be fetched is Other error, not a verdict on an image it never saw.
    assertThat(send("/api/send_image_url", to, base + "/missing.png", "x").body())
        .isEqualTo("Other error");
    assertThat(send("/api/send_file_url", to, base + "/missing.pdf", "x").body())
        .isEqualTo("Other error");
    assertThat(send("/api/send_image_url", to, refusingUrl() + "/logo.png", "x").body())
        .as("a refused connection")
        .isEqualTo("Other error");
    assertThat(send("/api/async_send_image_url", to, "not a url", "x").body())
        .isEqualTo("url_wrong");
    long started = System.nanoTime();
    assertThat(send("/api/send_image_url", to, base + "/slow.png", "x").body())
        .isEqualTo("Other error");
    assertThat((System.nanoTime() - started) / 1_000_000)
        .as("bounded by the 1 s fetch timeout (with a busy machine's slack), not the server's hang")
        .isLessThan(8_000);
    assertThat(
            send("/api/send_image_url", to, kurir.url("/api/send_message"), "the API itself")
                .body())
        .isEqualTo("Other error");
    assertThat(kurir.sandbox().inbox(to)).isEmpty();
  }

  /** An address on loopback where nothing listens: connecting to it is refused. */
  private static String refusingUrl() {
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return "http://127.0.0.1:" + s.getLocalPort();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void aFileIsKeptSoThatARestartStillSendsIt() {
    String to = Numbers.fresh();
    kurir.sandbox().setDeviceOnline(device.id(), false);
    String id = send("/api/async_send_image_url", to, base + "/logo.png", "after restart").body();
    assertThat(id).matches("\\d+");
    kurir.restart();
    kurir.sandbox().setDeviceOnline(device.id(), true);
    Eventually.until("sent after the restart", () -> kurir.sandbox().inbox(to).size() == 1);
    assertThat(kurir.sandbox().inbox(to).getFirst().mediaBytes()).isEqualTo(200L);
  }

  @Test
  void imagesAndFilesToGroups() {
    String a = Numbers.fresh();
    String groupId = Numbers.digits(device.number()) + "-1700000001";
    kurir.sandbox().createGroup(groupId, "Media group", java.util.List.of(device.number(), a));
    String body =
        "{\"key\":\""
            + device.ecoKey()
            + "\",\"group_id\":\""
            + groupId
            + "\",\"message\":\"cap\",\"url\":\"";

    assertThat(kurir.postJson("/api/send_image_url_group_id", body + base + "/logo.png\"}").body())
        .isEqualTo("success");
    assertThat(
            kurir.postJson("/api/send_file_url_group_id", body + base + "/invoice.pdf\"}").body())
        .isEqualTo("success");
    assertThat(
            kurir.postJson("/api/async_send_image_url_group_id", body + base + "/photo\"}").body())
        .matches("\\d+");
    assertThat(
            kurir.postJson("/api/async_send_file_url_group_id", body + base + "/photo\"}").body())
        .matches("\\d+");
    Eventually.until("four arrived", () -> kurir.sandbox().inbox(a).size() == 4);
    assertThat(kurir.sandbox().inbox(a)).extracting(InboxEntry::group).containsOnly(groupId);
    assertThat(kurir.sandbox().inbox(a))
        .extracting(InboxEntry::kind)
        .containsExactly("image", "file", "image", "file");

    assertThat(
            kurir.postJson("/api/send_file_url_group_id", body + base + "/missing.pdf\"}").body())
        .isEqualTo("other_error");
    String unknown =
        "{\"key\":\""
            + device.ecoKey()
            + "\",\"group_id\":\"6281200000000-5\",\"url\":\""
            + base
            + "/logo.png\"}";
    assertThat(kurir.postJson("/api/send_image_url_group_id", unknown).body())
        .isEqualTo("group_not_found");
  }
}
