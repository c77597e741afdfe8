package io.kurir.media;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.config.Settings;
import java.net.InetAddress;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What the fetcher refuses to reach when private addresses are not allowed. */
class SafeFetcherTest {
  // Its refusals come before any connection; the long budget is only so that a busy machine's
  // first look-up (seen taking over a second under load) is not read as a time-out.
  private final SafeFetcher fetcher =
      new SafeFetcher(new Settings.Media(64 * 1024, false, Duration.ofSeconds(30)));

  @ParameterizedTest
  @ValueSource(
      strings = {
        "http://127.0.0.1/x.png",
        "http://localhost/x.png",
        "http://[::1]/x.png",
        "http://10.1.2.3/x.png",
        "http://192.168.1.1/x.png",
        "http://172.16.0.1/x.png",
        "http://169.254.169.254/latest/meta-data/",
        "http://100.64.0.1/x.png",
        "http://0.0.0.0/x.png",
        "http://[fd00::1]/x.png",
        "http://[fe80::1]/x.png",
        "http://[::7f00:1]/x.png",
        "http://[64:ff9b::a00:1]/x.png",
        "http://[2002:a9fe:a9fe::]/x.png"
      })
  void internalAddressesAreRefusedBeforeAnyConnection(String url) {
    assertThat(fetcher.fetch(url)).isInstanceOf(FetchResult.BadUrl.class);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"", "   ", "file:///etc/passwd", "gopher://x", "http://", "//host/x", "not a url"})
  void notHttpUrlsAreRefused(String url) {
    assertThat(fetcher.fetch(url)).isInstanceOf(FetchResult.BadUrl.class);
  }

  @Test
  void publicAddressesAreNotInternal() throws Exception {
    assertThat(InternalAddresses.isReserved(InetAddress.getByName("93.184.216.34"))).isFalse();
    assertThat(InternalAddresses.isReserved(InetAddress.getByName("2606:2800:220:1::1"))).isFalse();
    assertThat(InternalAddresses.isReserved(InetAddress.getByName("100.128.0.1"))).isFalse();
  }

  @Test
  void typesComeFromContentAndNamesAreSafe() {
    assertThat(FileTypes.sniff(new byte[] {(byte) 0x89, 'P', 'N', 'G'})).isEqualTo("image/png");
    assertThat(FileTypes.sniff("<html>".getBytes())).isEqualTo("application/octet-stream");
    assertThat(FileTypes.nameFor(URI.create("http://h/a/../../etc/passwd"), "image/png"))
        .isEqualTo("passwd.png");
    assertThat(FileTypes.nameFor(URI.create("http://h/..%2F..%2Fx.png"), "image/png"))
        .doesNotContain("/");
    assertThat(FileTypes.nameFor(URI.create("http://h/"), "application/pdf")).isEqualTo("file.pdf");
  }

  @Test
  void aRedirectToAnInternalAddressIsRefusedAtThatHop() throws Exception {
    // 127.0.0.2 stands for a private network here: the first hop (127.0.0.1) is allowed, the
    // redirect target is not, so only the per-hop check can refuse it.
    var server =
        com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    int port = server.getAddress().getPort();
    server.createContext(
        "/jump",
        exchange -> {
          exchange.getResponseHeaders().add("Location", "http://127.0.0.2:" + port + "/secret.png");
          exchange.sendResponseHeaders(302, -1);
          exchange.close();
        });
    server.start();
    try {
      SafeFetcher guarded =
          new SafeFetcher(
              new Settings.Media(64 * 1024, false, Duration.ofSeconds(2)),
              a -> a.getHostAddress().equals("127.0.0.2"));
      FetchResult result = guarded.fetch("http://127.0.0.1:" + port + "/jump");
      assertThat(result).isInstanceOf(FetchResult.BadUrl.class);
      assertThat(((FetchResult.BadUrl) result).why()).contains("127.0.0.2");
    } finally {
      server.stop(0);
    }
  }

  @Test
  void aServerThatTricklesItsBodyIsCutOffAtTheDeadline() throws Exception {
    var release = new java.util.concurrent.CountDownLatch(1);
    var server =
        com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/trickle.png",
        exchange -> {
          exchange.sendResponseHeaders(200, 1000);
          exchange.getResponseBody().write(new byte[] {(byte) 0x89, 'P', 'N', 'G'});
          exchange.getResponseBody().flush();
          try {
            release.await(60, java.util.concurrent.TimeUnit.SECONDS); // the rest never comes
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          exchange.close();
        });
    server.setExecutor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
    server.start();
    try {
      SafeFetcher patient =
          new SafeFetcher(new Settings.Media(64 * 1024, true, Duration.ofSeconds(1)));
      long started = System.nanoTime();
      FetchResult result =
          patient.fetch("http://127.0.0.1:" + server.getAddress().getPort() + "/trickle.png");
      assertThat(result).isInstanceOf(FetchResult.Unreachable.class);
      // The 1 s deadline, with a busy machine's slack: the body would trickle for a minute.
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(15));
    } finally {
      release.countDown();
      server.stop(0);
    }
  }

  /**
   * DNS rebinding: the name first resolves to a "public" address (127.0.0.2 stands for one here)
   * and to loopback on every later lookup. The fetch looks it up once and connects where that
   * lookup said, so the service on 127.0.0.1 never sees a request.
   */
  @Test
  void aNameThatResolvesAgainToLoopbackIsFetchedFromTheAddressThatWasChecked() throws Exception {
    byte[] png = {(byte) 0x89, 'P', 'N', 'G', 1, 2, 3};
    var publicServer =
        com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.2", 0), 0);
    int port = publicServer.getAddress().getPort();
    var internalServer =
        com.sun.net.httpserver.HttpServer.create(
            new java.net.InetSocketAddress("127.0.0.1", port), 0);
    var internalHits = new java.util.concurrent.atomic.AtomicInteger();
    publicServer.createContext(
        "/",
        exchange -> {
          exchange.sendResponseHeaders(200, png.length);
          exchange.getResponseBody().write(png);
          exchange.close();
        });
    internalServer.createContext(
        "/",
        exchange -> {
          internalHits.incrementAndGet();
          exchange.sendResponseHeaders(200, 4);
          exchange.getResponseBody().write("oops".getBytes());
          exchange.close();
        });
    publicServer.start();
    internalServer.start();
    var lookups = new java.util.concurrent.atomic.AtomicInteger();
    HostResolver rebinding =
        host ->
            java.util.List.of(
                InetAddress.getByName(lookups.getAndIncrement() == 0 ? "127.0.0.2" : "127.0.0.1"));
    try {
      SafeFetcher guarded =
          new SafeFetcher(
              new Settings.Media(64 * 1024, false, Duration.ofSeconds(5)),
              rebinding,
              a -> !a.getHostAddress().equals("127.0.0.2"));
      FetchResult result = guarded.fetch("http://rebind.test:" + port + "/x.png");
      assertThat(result).isInstanceOf(FetchResult.Fetched.class);
      assertThat(((FetchResult.Fetched) result).file().bytes()).isEqualTo(png);
      assertThat(internalHits).hasValue(0);
      assertThat(lookups).hasValue(1);
      // The next lookup says loopback: refused before any connection.
      assertThat(guarded.refusalOf("http://rebind.test:" + port + "/x.png"))
          .get()
          .asString()
          .contains("127.0.0.1");
      assertThat(internalHits).hasValue(0);
    } finally {
      publicServer.stop(0);
      internalServer.stop(0);
    }
  }

  /** A lookup that hangs cannot be interrupted; the caller is answered at the deadline anyway. */
  @Test
  void aLookupThatHangsEndsAtTheDeadline() {
    var release = new java.util.concurrent.CountDownLatch(1);
    HostResolver hanging =
        host -> {
          try {
            release.await(60, java.util.concurrent.TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          throw new java.net.UnknownHostException(host);
        };
    try {
      SafeFetcher fetcher =
          new SafeFetcher(
              new Settings.Media(64 * 1024, false, Duration.ofSeconds(1)),
              hanging,
              InternalAddresses::isReserved);
      long started = System.nanoTime();
      FetchResult result = fetcher.fetch("http://slow-dns.test/x.png");
      assertThat(result).isEqualTo(new FetchResult.Unreachable("timed out"));
      // The 1 s deadline, with a busy machine's slack: the lookup would hang for a minute.
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(15));
    } finally {
      release.countDown();
    }
  }

  /** A server that accepts and never answers is cut off at the same deadline as a slow body. */
  @Test
  void aServerThatNeverAnswersIsCutOffAtTheDeadline() throws Exception {
    try (var silent = new java.net.ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
      Thread.ofVirtual()
          .start(
              () -> {
                try (var socket = silent.accept()) {
                  socket.getInputStream().readAllBytes(); // reads the request, answers nothing
                } catch (java.io.IOException e) {
                  // closed by the fetcher or the test
                }
              });
      SafeFetcher patient =
          new SafeFetcher(new Settings.Media(64 * 1024, true, Duration.ofSeconds(1)));
      long started = System.nanoTime();
      FetchResult result = patient.fetch("http://127.0.0.1:" + silent.getLocalPort() + "/x.png");
      assertThat(result).isEqualTo(new FetchResult.Unreachable("timed out"));
      // The 1 s deadline, with a busy machine's slack: the server never answers.
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(15));
    }
  }

  /**
   * A name that does not resolve could not be fetched; it is not a bad URL. The resolver is the
   * test's: it answers for a name under the reserved {@code .invalid} TLD without any lookup.
   */
  @Test
  void aHostThatDoesNotResolveCouldNotBeFetchedAndIsNoBadUrl() {
    var lookups = new java.util.concurrent.atomic.AtomicInteger();
    HostResolver nothing =
        host -> {
          lookups.incrementAndGet();
          throw new java.net.UnknownHostException(host);
        };
    SafeFetcher fetcher =
        new SafeFetcher(
            new Settings.Media(64 * 1024, false, Duration.ofSeconds(5)),
            nothing,
            InternalAddresses::isReserved);
    String url = "https://logo.kurir.invalid/logo.png";

    FetchResult result = fetcher.fetch(url);

    assertThat(result).isInstanceOf(FetchResult.Unreachable.class);
    assertThat(((FetchResult.Unreachable) result).why()).contains("logo.kurir.invalid");
    assertThat(fetcher.refusalOf(url)).as("accepted now, fetched (and failed) later").isEmpty();
    assertThat(lookups.get()).isPositive();
  }

  /** A name that resolves to an internal address is still refused, by the same resolver seam. */
  @Test
  void aHostThatResolvesToAnInternalAddressIsStillABadUrl() {
    HostResolver internal = host -> java.util.List.of(InetAddress.getLoopbackAddress());
    SafeFetcher fetcher =
        new SafeFetcher(
            new Settings.Media(64 * 1024, false, Duration.ofSeconds(5)),
            internal,
            InternalAddresses::isReserved);
    String url = "https://inside.kurir.invalid/logo.png";

    assertThat(fetcher.fetch(url)).isInstanceOf(FetchResult.BadUrl.class);
    assertThat(fetcher.refusalOf(url)).get().asString().contains("internal address");
  }
}
