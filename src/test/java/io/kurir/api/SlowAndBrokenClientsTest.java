package io.kurir.api;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.kurir.testing.Eventually;
import io.kurir.testing.TestGateway;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;
import org.slf4j.LoggerFactory;

/**
 * The HTTP edge against clients that break the protocol or take their time, over raw sockets: an
 * HTTP version nobody speaks, a malformed chunked body, a hang-up mid-body, a client that trickles
 * its head or body byte by byte ({@code http.request-deadline}), and one that opens more
 * connections than {@code http.max-connections-per-address}. None of them gets a 5xx, none writes
 * an ERROR or a stack trace into the log.
 */
@Isolated(
    "reads every record of the root logger and lowers HttpApi's level, for every gateway in this JVM")
class SlowAndBrokenClientsTest {
  /**
   * What a test allows a server that works to take; a server that does not takes forever. Only a
   * hang guard, generous for a loaded machine: every wait ends as soon as its event happens.
   */
  private static final Duration GENEROUS = Duration.ofSeconds(60);

  @TempDir Path dir;
  private TestGateway kurir;
  private final List<Socket> sockets = new ArrayList<>();
  private final ListAppender<ILoggingEvent> log = new ListAppender<>();
  private Level httpApiLevel;

  @BeforeEach
  void captureTheLog() {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    log.setContext(context);
    log.start();
    context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).addAppender(log);
    // Its DEBUG line is the event the hang-up test waits for.
    Logger httpApi = context.getLogger(HttpApi.class);
    httpApiLevel = httpApi.getLevel();
    httpApi.setLevel(Level.DEBUG);
  }

  @AfterEach
  void stop() throws IOException {
    for (Socket s : sockets) {
      s.close();
    }
    if (kurir != null) {
      kurir.close();
    }
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).detachAppender(log);
    context.getLogger(HttpApi.class).setLevel(httpApiLevel);
  }

  /**
   * Starts a gateway, then forgets what it logged while starting (a created key file's WARN, say):
   * each test judges the log of the exchange under test only.
   */
  private TestGateway started(Path folder, String... flags) {
    TestGateway gateway = TestGateway.start(folder, flags);
    synchronized (log) { // the appender appends under its own lock
      log.list.clear();
    }
    return gateway;
  }

  private Socket connect() throws IOException {
    Socket s = new Socket("127.0.0.1", kurir.gateway().port());
    s.setSoTimeout((int) GENEROUS.toMillis());
    sockets.add(s);
    return s;
  }

  private static void write(Socket s, String raw) throws IOException {
    OutputStream out = s.getOutputStream();
    out.write(raw.getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
  }

  /** One response: status line and headers, then as many bytes as Content-Length says. */
  record Response(int status, String head, String body) {}

  private static Response read(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("closed after: " + head.toString(StandardCharsets.ISO_8859_1));
      }
      head.write(b);
    }
    String text = head.toString(StandardCharsets.ISO_8859_1);
    int length = 0;
    for (String line : text.split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring(line.indexOf(':') + 1).strip());
      }
    }
    String body = new String(in.readNBytes(length), StandardCharsets.UTF_8);
    return new Response(Integer.parseInt(text.substring(9, 12)), text, body);
  }

  /**
   * Whether the server has closed {@code s} without answering: a read ends (-1) or the connection
   * was reset. An answer fails the test.
   */
  private static boolean closedByServer(Socket s) throws IOException {
    int b;
    try {
      b = s.getInputStream().read();
    } catch (SocketTimeoutException stillOpen) {
      throw stillOpen;
    } catch (IOException reset) { // a reset; over TLS, an SSLException
      return true;
    }
    if (b >= 0) {
      byte[] rest = new byte[4096];
      int n = s.getInputStream().read(rest);
      throw new AssertionError(
          "answered instead of closed: "
              + (char) b
              + new String(rest, 0, Math.max(n, 0), StandardCharsets.ISO_8859_1));
    }
    return true;
  }

  /** Events of WARN and above, and any event with a stack trace: none is allowed. */
  private List<String> errorsAndTraces() {
    return log.list.stream()
        .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN) || e.getThrowableProxy() != null)
        .map(e -> e.getLevel() + " " + e.getLoggerName() + ": " + e.getFormattedMessage())
        .toList();
  }

  @Test
  void anHttpVersionNobodySpeaksIsNamedInTheToken() throws Exception {
    kurir = started(dir);
    Socket s = connect();
    write(s, "GET / HTTP/9.9\r\nHost: kurir\r\n\r\n");
    Response r = read(s);
    assertThat(r.status()).isEqualTo(505);
    assertThat(r.body()).isEqualTo("http_version_not_supported");
  }

  @Test
  void aMalformedChunkedBodyIsABadRequestAndNoErrorInTheLog() throws Exception {
    kurir = started(dir);
    Socket s = connect();
    write(
        s,
        "POST /api/check_number HTTP/1.1\r\nHost: kurir\r\nContent-Type: application/json\r\n"
            + "Transfer-Encoding: chunked\r\n\r\nZZ\r\n{\"key\":\"x\"}\r\n0\r\n\r\n");
    Response r = read(s);
    assertThat(r.status()).as(r.head()).isEqualTo(400);
    assertThat(r.body()).isEqualTo("malformed_body");
    // The same in a JSON family's own shape.
    Socket crm = connect();
    write(
        crm,
        "POST /send/message-text HTTP/1.1\r\nHost: kurir\r\nContent-Type: application/json\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":1}\r\n0\r\n\r\n");
    Response json = read(crm);
    assertThat(json.status()).as(json.head()).isEqualTo(400);
    assertThat(json.body()).isEqualTo("{\"status\":false,\"message\":\"malformed_body\"}");
    assertThat(errorsAndTraces()).isEmpty();
  }

  @Test
  void aClientThatHangsUpMidBodyLeavesOneShortDebugLineAndNoError() throws Exception {
    kurir = started(dir);
    Socket s = connect();
    write(
        s,
        "POST /api/check_number HTTP/1.1\r\nHost: kurir\r\nContent-Type: application/json\r\n"
            + "Content-Length: 100\r\n\r\n{\"key\":");
    s.setSoLinger(true, 0); // a reset, as when the client's process dies
    s.close();

    Eventually.until(
        "the server has given up on the body",
        GENEROUS,
        () ->
            log.list.stream()
                .anyMatch(
                    e ->
                        e.getLevel().isGreaterOrEqual(Level.WARN)
                            || e.getFormattedMessage().contains("could not be read")));
    assertThat(errorsAndTraces()).isEmpty();
    List<ILoggingEvent> lines =
        log.list.stream()
            .filter(e -> e.getFormattedMessage().contains("could not be read"))
            .toList();
    assertThat(lines).hasSize(1);
    assertThat(lines.getFirst().getLevel()).isEqualTo(Level.DEBUG);
    assertThat(lines.getFirst().getFormattedMessage()).doesNotContain("\n").hasSizeLessThan(300);
  }

  /**
   * Writes {@code prefix}, then one more byte each time a short wait for the server's answer passes
   * without one, until the server closes the connection; how many bytes that took.
   */
  private static int trickleUntilClosed(Socket s, String prefix, long startNanos)
      throws IOException {
    write(s, prefix);
    s.setSoTimeout(100); // how long each byte waits for the close: a poll, not a delay
    int trickled = 0;
    while (System.nanoTime() - startNanos < GENEROUS.toNanos()) {
      try {
        if (closedByServer(s)) {
          return trickled;
        }
      } catch (SocketTimeoutException stillOpen) {
        try {
          write(s, "a");
          trickled++;
        } catch (IOException closedMeanwhile) {
          return trickled;
        }
      }
    }
    throw new AssertionError(
        "the connection was still open after " + GENEROUS + " and " + trickled + " bytes");
  }

  @Test
  void aClientTricklingItsHeadIsDisconnectedAtTheDeadline() throws Exception {
    kurir = started(dir, "--http.request-deadline=1s");
    Socket s = connect();
    // Before the first request: the second one's deadline starts when the first is answered.
    long start = System.nanoTime();
    // A whole request within the deadline is answered, and the connection stays open for more.
    write(s, "GET /health/live HTTP/1.1\r\nHost: kurir\r\n\r\n");
    assertThat(read(s).status()).isEqualTo(200);

    // The next request's head, one byte at a time: never idle, never complete.
    int trickled = trickleUntilClosed(s, "GET /health/live HTTP/1.1\r\nX-Slow: ", start);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(took).isGreaterThanOrEqualTo(Duration.ofSeconds(1)).isLessThan(GENEROUS);
    assertThat(trickled).isPositive();
    assertThat(errorsAndTraces()).isEmpty();
  }

  @Test
  void aClientTricklingItsBodyIsDisconnectedAtTheDeadline() throws Exception {
    kurir = started(dir, "--http.request-deadline=1s");
    Socket s = connect();
    long start = System.nanoTime();
    int trickled =
        trickleUntilClosed(
            s,
            "POST /api/check_number HTTP/1.1\r\nHost: kurir\r\n"
                + "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{",
            start);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(GENEROUS);
    assertThat(trickled).isPositive();
    // The handler blocked on the body learns of it as a hang-up: no ERROR, no trace.
    Eventually.until(
        "the handler has given up on the body",
        GENEROUS,
        () ->
            kurir
                .get("/metrics", "Authorization", "Bearer " + TestGateway.ADMIN_TOKEN)
                .body()
                .contains("route=\"/api/check_number\""));
    assertThat(errorsAndTraces()).isEmpty();
  }

  /** A connection that is open and served: a request on it was answered. */
  private Socket served() throws IOException {
    Socket s = connect();
    write(s, "GET /health/live HTTP/1.1\r\nHost: kurir\r\n\r\n");
    assertThat(read(s).status()).isEqualTo(200);
    return s;
  }

  @Test
  void connectionsOverTheBoundPerAddressAreClosedAtOnce() throws Exception {
    kurir = started(dir, "--http.max-connections-per-address=2", "--limits.exempt=");
    Socket first = served();
    served();

    Socket third = connect();
    assertThat(closedByServer(third)).as("closed, not left to time out").isTrue();

    first.close();
    // Once the server has seen the first one go, a new one is served again; then the bound holds.
    Eventually.until(
        "a connection is served again",
        GENEROUS,
        () -> {
          try {
            served();
            return true;
          } catch (IOException | AssertionError refused) {
            return false;
          }
        });
    assertThat(closedByServer(connect())).isTrue();
    assertThat(errorsAndTraces()).isEmpty();
  }

  @Test
  void aTrustedProxyAndTheExemptAddressesAreNotBounded() throws Exception {
    // The bound counts sockets by their peer: a proxy's carry many clients' requests.
    kurir =
        started(
            dir,
            "--http.max-connections-per-address=1",
            "--limits.exempt=",
            "--http.trusted-proxies=127.0.0.1");
    served();
    served();
    served();
    kurir.close();
    // The gateway's own machine, exempt from limits by default, is not bounded either.
    kurir = started(dir.resolve("second"), "--http.max-connections-per-address=1");
    served();
    served();
  }

  @Test
  void overTlsTheDeadlineAndTheBoundHoldToo() throws Exception {
    TlsTest.Identity rsa = TlsTest.identity("RSA");
    Path cert = TlsTest.writeCertificate(dir.resolve("fullchain.pem"), rsa.certificate());
    Path key = TlsTest.writeTraditionalKey(dir.resolve("privkey.pem"), rsa.key());
    kurir =
        started(
            dir,
            "--server.tls.cert=" + cert,
            "--server.tls.key=" + key,
            // The first request's deadline includes the TLS handshake: room for a loaded machine.
            "--http.request-deadline=3s",
            "--http.max-connections-per-address=1",
            "--limits.exempt=");
    KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
    trusted.load(null, null);
    trusted.setCertificateEntry("kurir", rsa.certificate());
    TrustManagerFactory trust =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(trusted);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, trust.getTrustManagers(), null);

    SSLSocket first =
        (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", kurir.gateway().port());
    sockets.add(first);
    first.setSoTimeout((int) GENEROUS.toMillis());
    write(first, "GET /health/live HTTP/1.1\r\nHost: kurir\r\n\r\n");
    assertThat(read(first).status()).isEqualTo(200);

    // One TLS connection is the bound: a second is closed before its handshake ends.
    SSLSocket second =
        (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", kurir.gateway().port());
    sockets.add(second);
    second.setSoTimeout((int) GENEROUS.toMillis());
    boolean refused;
    try {
      second.startHandshake();
      refused = closedByServer(second);
    } catch (SocketTimeoutException e) {
      throw new AssertionError("the second connection was left open", e);
    } catch (IOException closedInTheHandshake) {
      refused = true;
    }
    assertThat(refused).isTrue();

    // The first one's next head, trickled: cut at the deadline as over plain HTTP.
    long start = System.nanoTime();
    trickleUntilClosed(first, "GET /health/live HTTP/1.1\r\nX-Slow: ", start);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(GENEROUS);
    assertThat(errorsAndTraces()).isEmpty();
  }

  /** A declared length over {@code http.max-body} is refused from the head, not awaited. */
  @Test
  void aDeclaredLengthOverTheMaxBodyIsRefusedAtOnce() throws Exception {
    kurir = started(dir, "--http.max-body=1KB");
    Socket s = connect();
    write(
        s,
        "POST /api/check_number HTTP/1.1\r\nHost: kurir\r\nContent-Type: application/json\r\n"
            + "Content-Length: 100000\r\n\r\n{");
    Response r = read(s);
    assertThat(r.status()).as(r.head()).isEqualTo(413);
    assertThat(r.body()).isEqualTo("body_too_large");
    assertThat(errorsAndTraces()).isEmpty();
  }

  /** A chunked body that grows over {@code http.max-body}: 413, and nothing above DEBUG. */
  @Test
  void aChunkedBodyOverTheMaxBodyIsRefusedWithoutAWarning() throws Exception {
    kurir = started(dir, "--http.max-body=1KB");
    Socket s = connect();
    String chunk = "a".repeat(1500);
    write(
        s,
        "POST /send/message-text HTTP/1.1\r\nHost: kurir\r\nContent-Type: application/json\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n"
            + Integer.toHexString(chunk.length())
            + "\r\n"
            + chunk
            + "\r\n0\r\n\r\n");
    Response r = read(s);
    assertThat(r.status()).as(r.head()).isEqualTo(413);
    assertThat(r.body()).isEqualTo("{\"status\":false,\"message\":\"body_too_large\"}");
    assertThat(errorsAndTraces()).isEmpty();
  }

  /** Requests Jetty refuses before any route: each token says what happened. */
  @Test
  void protocolErrorsSayWhatHappened() throws Exception {
    kurir = started(dir);
    Socket http2 = connect();
    write(http2, "GET / HTTP/2.0\r\nHost: kurir\r\n\r\n");
    Response version = read(http2);
    assertThat(version.status()).as(version.head()).isEqualTo(426);
    assertThat(version.body()).contains("http_version_not_supported").doesNotContain("HTTP 426");

    Socket noHost = connect();
    write(noHost, "GET /api/check_number HTTP/1.1\r\n\r\n");
    Response host = read(noHost);
    assertThat(host.status()).as(host.head()).isEqualTo(400);
    assertThat(host.body()).isEqualTo("host_missing");

    Socket garbage = connect();
    write(garbage, "GE\u0007T / HTTP/1.1\r\nHost: kurir\r\n\r\n");
    Response line = read(garbage);
    assertThat(line.status()).as(line.head()).isEqualTo(400);
    assertThat(line.body()).isEqualTo("malformed_request");
    assertThat(errorsAndTraces()).isEmpty();
  }
}
