package io.kurir.api.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.Device;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * A form body the server cannot read (a broken multipart body) is the browser's mistake, not the
 * gateway's: every console form answers 400 with the console's error page, never the 500 page.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Isolated("counts ConsoleRoutes' log lines and lowers its level, for every gateway in this JVM")
class ConsoleBrokenFormTest {
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

  /** Bodies a multipart parser refuses: no closing boundary, no boundary at all, a bad header. */
  private static final List<String[]> BROKEN =
      List.of(
          new String[] {
            "multipart/form-data; boundary=XyZ",
            "--XyZ\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\nabc"
          },
          new String[] {"multipart/form-data", "--XyZ\r\n\r\nabc\r\n--XyZ--\r\n"},
          new String[] {
            "multipart/form-data; boundary=XyZ", "--XyZ\r\nno header at all\r\n--XyZ--\r\n"
          });

  private HttpResponse<String> broken(String path, boolean signedIn, String[] body)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(kurir.url(path)))
            .header("Content-Type", body[0])
            .POST(HttpRequest.BodyPublishers.ofString(body[1]));
    if (signedIn) {
      b.header("Cookie", console.cookie);
    }
    // A client of its own each time: Jetty closes a connection whose body it could not read, and a
    // pooled connection could be picked up again just as it closes.
    try (HttpClient fresh = HttpClient.newHttpClient()) {
      return fresh.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
  }

  @Test
  void everyConsoleFormAnswersABrokenMultipartBodyWith400InTheConsolesStyle() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    for (String[] body : BROKEN) {
      HttpResponse<String> signIn = broken("/console/sign-in", false, body);
      assertThat(signIn.statusCode()).as("sign-in " + body[1]).isEqualTo(400);
      assertThat(signIn.body()).contains("data-testid=\"error\"").contains("<title>");
      for (String path :
          List.of(
              "/console/partners",
              "/console/licenses",
              "/console/sign-out",
              "/console/devices/" + device.id() + "/send",
              "/console/webhooks/1/replay")) {
        HttpResponse<String> r = broken(path, true, body);
        assertThat(r.statusCode()).as(path + " " + body[1]).isEqualTo(400);
        assertThat(r.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/html");
        assertThat(r.body())
            .as(path)
            .contains("data-testid=\"error\"")
            .contains("could not be read")
            .doesNotContain("server_error")
            .doesNotContain("Exception");
      }
    }
    // The session still works: nothing was signed out by a body that could not be read.
    assertThat(console.get("/console/partners").statusCode()).isEqualTo(200);
  }

  /** Anyone can send a broken body without signing in, as often as they like: DEBUG, no higher. */
  @Test
  void aBrokenBodyIsLoggedAtDebugOnly() throws Exception {
    ch.qos.logback.classic.Logger routes =
        (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(ConsoleRoutes.class);
    ch.qos.logback.classic.Level level = routes.getLevel();
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> log =
        new ch.qos.logback.core.read.ListAppender<>();
    log.start();
    routes.addAppender(log);
    routes.setLevel(ch.qos.logback.classic.Level.DEBUG);
    try {
      assertThat(broken("/console/sign-in", false, BROKEN.getFirst()).statusCode()).isEqualTo(400);
      List<ch.qos.logback.classic.spi.ILoggingEvent> lines;
      synchronized (log) {
        lines =
            log.list.stream()
                .filter(e -> e.getFormattedMessage().contains("unreadable form body"))
                .toList();
      }
      assertThat(lines).hasSize(1);
      assertThat(lines.getFirst().getLevel()).isEqualTo(ch.qos.logback.classic.Level.DEBUG);
    } finally {
      routes.detachAppender(log);
      routes.setLevel(level);
    }
  }
}
