package io.kurir.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.javalin.config.RoutesConfig;
import io.kurir.config.Settings;
import io.kurir.limit.RateLimit;
import io.kurir.limit.RequestLimits;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code http.request-deadline} bounds how long a request takes to arrive, not how long its answer
 * takes: a handler that works past the deadline, once it has read the whole request (a body, or
 * none), still answers on the same connection. The server is {@link HttpApi} alone, with one route
 * that holds its answer until the test lets it go.
 */
class RequestDeadlineTest {
  private static final Duration GENEROUS = Duration.ofSeconds(60);

  private final CountDownLatch requestIn = new CountDownLatch(1);
  private final CountDownLatch answer = new CountDownLatch(1);
  private HttpApi http;

  /** {@code /slow/…}: reads the body, says so, and answers once the test lets it. */
  private final class SlowRoutes implements RouteTable {
    @Override
    public String pathPrefix() {
      return "/slow/";
    }

    @Override
    public ErrorStyle errorStyle() {
      return ErrorStyle.PLAIN_TOKEN;
    }

    @Override
    public void addTo(RoutesConfig routes) {
      routes.post("/slow/echo", ctx -> ctx.result(hold(ctx.body())));
      routes.get("/slow/hello", ctx -> ctx.result(hold("hello")));
      routes.get("/slow/now", ctx -> ctx.result("now"));
      routes.post("/slow/now", ctx -> ctx.result(ctx.body()));
      routes.post("/slow/length", ctx -> ctx.result(Integer.toString(ctx.bodyAsBytes().length)));
    }

    private String hold(String reply) throws InterruptedException {
      requestIn.countDown();
      assertThat(answer.await(GENEROUS.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
      return reply;
    }
  }

  @BeforeEach
  void start() {
    http =
        HttpApi.start(
            ListeningSocket.bind("127.0.0.1", 0),
            1024 * 1024,
            new RequestLimits(RateLimit.OFF, RateLimit.OFF, List.of(), Clock.systemUTC()),
            List.of(),
            List.of(new SlowRoutes()),
            RequestTimer.NONE,
            new Settings.Edge(Duration.ofMillis(500), 0));
  }

  @AfterEach
  void stop() {
    answer.countDown();
    http.close();
  }

  private Socket connect() throws IOException {
    Socket s = new Socket("127.0.0.1", http.port());
    s.setSoTimeout((int) GENEROUS.toMillis());
    return s;
  }

  /**
   * Waits until a deadline has passed for a connection opened now (the server closes one that sends
   * nothing): past it, any deadline that started earlier has passed too.
   */
  private void waitOutADeadline() throws IOException {
    try (Socket idle = connect()) {
      try {
        assertThat(idle.getInputStream().read()).isEqualTo(-1);
      } catch (SocketException reset) {
        // closed, too
      }
    } catch (SocketTimeoutException e) {
      throw new AssertionError("an idle connection was not closed at the deadline", e);
    }
  }

  private static String readResponse(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    while (!out.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new AssertionError("closed before an answer: " + out);
      }
      out.write(b);
    }
    String head = out.toString(StandardCharsets.ISO_8859_1);
    int length =
        Integer.parseInt(head.replaceAll("(?is).*content-length:\\s*(\\d+).*", "$1").strip());
    return head + new String(in.readNBytes(length), StandardCharsets.UTF_8);
  }

  private void answersAfterTheDeadline(String request, String expectedBody) throws Exception {
    try (Socket s = connect()) {
      s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
      assertThat(requestIn.await(GENEROUS.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
      waitOutADeadline();
      answer.countDown();
      String response = readResponse(s);
      assertThat(response).startsWith("HTTP/1.1 200").endsWith(expectedBody);
    }
  }

  @Test
  void aHandlerThatReadTheBodyMayAnswerAfterTheDeadline() throws Exception {
    answersAfterTheDeadline(
        "POST /slow/echo HTTP/1.1\r\nHost: kurir\r\nContent-Type: text/plain\r\n"
            + "Content-Length: 5\r\n\r\nhello",
        "hello");
  }

  @Test
  void aRequestWithoutABodyMayBeAnsweredAfterTheDeadline() throws Exception {
    answersAfterTheDeadline("GET /slow/hello HTTP/1.1\r\nHost: kurir\r\n\r\n", "hello");
  }

  @Test
  void aChunkedBodyReadToItsEndStopsTheDeadlineToo() throws Exception {
    answersAfterTheDeadline(
        "POST /slow/echo HTTP/1.1\r\nHost: kurir\r\nContent-Type: text/plain\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        "hello");
  }

  /**
   * A kept-alive connection that was idle for longer than the deadline still takes its next
   * request: that request's deadline starts at its first byte (pooled clients reuse connections
   * that have waited for minutes). The idle time is Jetty's idle timeout's business.
   */
  @Test
  void idleTimeBetweenRequestsDoesNotCountAgainstTheNext() throws Exception {
    try (Socket s = connect()) {
      s.getOutputStream()
          .write("GET /slow/now HTTP/1.1\r\nHost: kurir\r\n\r\n".getBytes(StandardCharsets.UTF_8));
      assertThat(readResponse(s)).startsWith("HTTP/1.1 200").endsWith("now");
      waitOutADeadline();
      s.getOutputStream()
          .write(
              ("POST /slow/now HTTP/1.1\r\nHost: kurir\r\nContent-Type: text/plain\r\n"
                      + "Content-Length: 5\r\n\r\nhello")
                  .getBytes(StandardCharsets.UTF_8));
      assertThat(readResponse(s)).startsWith("HTTP/1.1 200").endsWith("hello");
    }
  }

  /** The next request on a kept-alive connection still has the deadline, from its first byte. */
  @Test
  void theNextRequestOnAKeptAliveConnectionHasTheDeadlineToo() throws Exception {
    try (Socket s = connect()) {
      s.getOutputStream()
          .write("GET /slow/now HTTP/1.1\r\nHost: kurir\r\n\r\n".getBytes(StandardCharsets.UTF_8));
      assertThat(readResponse(s)).startsWith("HTTP/1.1 200").endsWith("now");
      s.getOutputStream()
          .write(
              ("POST /slow/now HTTP/1.1\r\nHost: kurir\r\nContent-Type: text/plain\r\n"
                      + "Content-Length: 5\r\n\r\nhe")
                  .getBytes(StandardCharsets.UTF_8));
      try {
        assertThat(s.getInputStream().read()).isEqualTo(-1);
      } catch (SocketException reset) {
        // closed, too
      }
    }
  }

  /**
   * A body that arrives steadily at more than {@link RequestDeadline#MIN_BODY_BYTES_PER_SECOND} is
   * not cut at the deadline: each byte read earns time. Here 224 KiB (7 s at the minimum rate)
   * arrive at once, a deadline passes, then the rest: the whole body is echoed.
   */
  @Test
  void aBodyArrivingAtTheMinimumRateGetsMoreTime() throws Exception {
    int length = 256 * 1024;
    byte[] body = "a".repeat(length).getBytes(StandardCharsets.US_ASCII);
    try (Socket s = connect()) {
      s.getOutputStream()
          .write(
              ("POST /slow/length HTTP/1.1\r\nHost: kurir\r\nContent-Type: text/plain\r\n"
                      + "Content-Length: "
                      + length
                      + "\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      int first = 224 * 1024;
      s.getOutputStream().write(body, 0, first);
      waitOutADeadline();
      s.getOutputStream().write(body, first, length - first);
      String response = readResponse(s);
      assertThat(response).startsWith("HTTP/1.1 200").endsWith(Integer.toString(length));
    }
  }
}
