package io.kurir.schedule;

import static io.kurir.testing.TestFiles.PDF;
import static io.kurir.testing.TestFiles.PNG;
import static io.kurir.testing.TestFiles.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.time.SettableClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Image and file schedules against a real HTTP server on loopback whose files can be taken away
 * between scheduling and sending. The clock starts at 10:00 in the operator zone (UTC+7).
 */
class ScheduledMediaTest {
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  final SettableClock clock = TestGateway.settableClock();
  final Map<String, byte[]> served = new ConcurrentHashMap<>();
  HttpServer files;
  String base;
  TestGateway kurir;
  Device device;

  @BeforeEach
  void start() throws IOException {
    served.put("/logo.png", PNG);
    served.put("/invoice.pdf", PDF);
    served.put("/big.pdf", bytes(new int[] {'%', 'P', 'D', 'F'}, 100 * 1024));
    served.put("/fake.png", "<html>not an image</html>".getBytes());
    files = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    files.createContext(
        "/",
        exchange -> {
          byte[] body = served.get(exchange.getRequestURI().getPath());
          if (body == null) {
            exchange.sendResponseHeaders(404, -1);
          } else {
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
          }
          exchange.close();
        });
    files.start();
    base = "http://127.0.0.1:" + files.getAddress().getPort();
    kurir =
        TestGateway.start(
            dir,
            clock,
            "--media.allow-private-addresses=true", // the file server is on loopback
            "--media.max-size=64KB",
            "--media.fetch-timeout=2s");
    device = kurir.newDevice();
  }

  @AfterEach
  void stop() {
    kurir.close();
    files.stop(0);
  }

  String schedule(String to, String date, String type, String message, String url) {
    return kurir
        .postForm(
            "/api/scheduler",
            "key="
                + device.ecoKey()
                + "&phone_no="
                + to
                + "&sch_date="
                + date.replace(" ", "+")
                + "&api_type="
                + type
                + "&message="
                + message
                + "&url="
                + url)
        .body();
  }

  JsonNode call(String path, String id) throws Exception {
    return JSON.readTree(
        kurir
            .postJson(path, "{\"key\":\"" + device.ecoKey() + "\",\"msg_id\":\"" + id + "\"}")
            .body());
  }

  JsonNode record(String id) {
    try {
      return call("/api/sch_check", id).get("data").get(0);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void imagesAndFilesAreFetchedAndSentWhenDue() {
    String to = Numbers.fresh();
    String image = schedule(to, "2026-03-10 10:01", "image_text", "Promo", base + "/logo.png");
    String text = schedule(to, "2026-03-10 10:01", "text", "Lihat+di+atas", "");
    String bare = schedule(to, "2026-03-10 10:02", "image", "", base + "/logo.png");
    String file = schedule(to, "2026-03-10 10:01", "file", "Tagihan", base + "/invoice.pdf");
    assertThat(image).matches("\\d+");
    assertThat(bare).matches("\\d+");
    assertThat(text).matches("\\d+");
    assertThat(file).matches("\\d+");
    assertThat(record(image).get("filename").asText()).isEqualTo("logo.png");
    assertThat(record(file).get("filename").asText()).isEqualTo("invoice.pdf");
    assertThat(record(file).get("api_type").asText()).isEqualTo("file");

    clock.advance(Duration.ofMinutes(1));
    Eventually.until("three sent", () -> kurir.sandbox().inbox(to).size() == 3);
    clock.advance(Duration.ofMinutes(1));
    Eventually.until("four sent", () -> kurir.sandbox().inbox(to).size() == 4);
    // In the order scheduled: a text does not overtake an image still being fetched.
    var inbox = kurir.sandbox().inbox(to);
    assertThat(inbox)
        .extracting(InboxEntry::kind)
        .containsExactly("image", "text", "file", "image");
    assertThat(inbox)
        .extracting(InboxEntry::text)
        .containsExactly("Promo", "Lihat di atas", "Tagihan", "");
    Eventually.until(
        "all success",
        () ->
            record(image).get("status").asText().equals("success")
                && record(file).get("status").asText().equals("success"));
  }

  @Test
  void whatCanBeCheckedAtSchedulingTimeIsRefusedThen() {
    String to = Numbers.fresh();
    assertThat(schedule(to, "2026-03-10 11:00", "image", "", base + "/missing.png"))
        .isEqualTo("image_not_found");
    assertThat(schedule(to, "2026-03-10 11:00", "image_text", "Hi", base + "/fake.png"))
        .isEqualTo("image_not_found");
    assertThat(schedule(to, "2026-03-10 11:00", "file", "", base + "/big.pdf"))
        .isEqualTo("file_more_than_64KB");
  }

  @Test
  void aUrlThatStopsWorkingFailsTheScheduleWhenDue() throws Exception {
    String to = Numbers.fresh();
    served.put("/report.pdf", PDF);
    String id = schedule(to, "2026-03-10 10:05", "file", "Laporan", base + "/report.pdf");
    assertThat(id).matches("\\d+");
    served.remove("/report.pdf");
    clock.advance(Duration.ofMinutes(5));
    Eventually.until("failed", () -> record(id).get("status").asText().equals("failed"));
    assertThat(kurir.sandbox().inbox(to)).isEmpty();
    JsonNode remove = call("/api/sch_remove", id);
    assertThat(remove.get("status").asText()).isEqualTo("failed");
    assertThat(remove.get("message").asText()).isEqualTo("already_failed");
  }

  @Test
  void aFileNotThereYetIsAcceptedAndSentIfItIsThereWhenDue() {
    String to = Numbers.fresh();
    String id = schedule(to, "2026-03-10 10:05", "file", "Soon", base + "/later.pdf");
    assertThat(id).matches("\\d+");
    assertThat(record(id).get("filename").asText()).isEqualTo("later.pdf");
    served.put("/later.pdf", PDF);
    clock.advance(Duration.ofMinutes(5));
    Eventually.until("sent", () -> kurir.sandbox().inbox(to).size() == 1);
    assertThat(kurir.sandbox().inbox(to).getFirst().kind()).isEqualTo("file");
  }

  @Test
  void aMediaScheduleDueWhileStoppedIsSentOnceAtStart() {
    String to = Numbers.fresh();
    String id = schedule(to, "2026-03-10 10:03", "image_text", "Promo", base + "/logo.png");
    kurir.stop();
    clock.advance(Duration.ofMinutes(10));
    kurir.startAgain();
    Eventually.until("sent", () -> kurir.sandbox().inbox(to).size() == 1);
    kurir.restart();
    clock.advance(Duration.ofMinutes(1));
    SchedulerTest.runnerLooked(kurir, clock);
    assertThat(SchedulerTest.scheduledMessagesTo(kurir, to)).isEqualTo(1);
    assertThat(kurir.sandbox().inbox(to)).hasSize(1);
    assertThat(record(id).get("status").asText()).isEqualTo("success");
  }
}
