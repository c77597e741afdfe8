package io.kurir.webhook;

import io.kurir.media.SafeFetcher;
import io.kurir.webhook.WebhookStore.Delivery;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * One attempt of one delivery: a signed JSON POST (headers in {@code docs/webhooks.md}) under one
 * deadline of {@code timeout} for everything (checking and resolving the host, connecting, sending,
 * the answer's headers and its whole body), so that a receiver that trickles its answer holds a
 * delivery slot no longer than that. At the deadline the exchange is cancelled, which closes its
 * connection.
 *
 * <p>Thread-safe.
 */
final class WebhookSender implements AutoCloseable {
  /** The times in {@code X-Kurir-Event-Time}: UTC, always with milliseconds, so they sort. */
  static final DateTimeFormatter EVENT_TIME =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  /** How an attempt ended. */
  enum Result {
    /** A 2xx answer. */
    DELIVERED,
    /** Refused for good (a 4xx other than 408 and 429, a 3xx, a URL Kurir may not call). */
    REFUSED,
    /** Worth trying again (a timeout, a 5xx, 408, 429, no connection). */
    FAILED
  }

  /** The result, and for a refused or failed attempt what went wrong. */
  record Outcome(Result result, String error) {
    static Outcome failed(String error) {
      return new Outcome(Result.FAILED, error);
    }
  }

  private final Clock clock;
  private final SafeFetcher targets;
  private final Duration timeout;
  private final HttpClient http;
  // Host checks resolve names, which cannot be interrupted: they run here, under the deadline.
  private final ExecutorService lookups = Executors.newVirtualThreadPerTaskExecutor();

  WebhookSender(Clock clock, SafeFetcher targets, Duration timeout) {
    this.clock = clock;
    this.targets = targets;
    this.timeout = timeout;
    this.http =
        HttpClient.newBuilder()
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(timeout)
            .version(HttpClient.Version.HTTP_1_1)
            .build();
  }

  /**
   * Posts {@code d} and waits for the complete answer, at most {@code timeout}.
   *
   * @throws InterruptedException when the outbox is stopping; the exchange is cancelled
   */
  Outcome post(Delivery d) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    CompletableFuture<Optional<String>> check =
        CompletableFuture.supplyAsync(() -> targets.refusalOf(d.url()), lookups);
    Optional<String> refused;
    try {
      refused = check.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      return Outcome.failed("no complete answer within " + timeout.toMillis() + " ms");
    } catch (ExecutionException e) {
      return Outcome.failed(e.getCause().toString());
    }
    if (refused.isPresent()) {
      return new Outcome(Result.REFUSED, "refused: " + refused.get());
    }
    String timestamp = Long.toString(clock.instant().getEpochSecond());
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(d.url()))
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .header("User-Agent", "Kurir-Webhook")
            .header("X-Kurir-Event", d.event())
            .header("X-Kurir-Event-Id", Long.toString(d.id()))
            .header("X-Kurir-Event-Time", EVENT_TIME.format(d.eventAt()))
            .header("X-Kurir-Timestamp", timestamp)
            .header("X-Kurir-Signature", signatures(d, timestamp))
            .POST(HttpRequest.BodyPublishers.ofString(d.payload(), StandardCharsets.UTF_8));
    d.sequence().ifPresent(s -> request.header("X-Kurir-Sequence", Long.toString(s)));
    // The body is discarded as it arrives; the future completes only once all of it has.
    CompletableFuture<HttpResponse<Void>> call =
        http.sendAsync(request.build(), HttpResponse.BodyHandlers.discarding());
    try {
      long left = deadline - System.nanoTime();
      int status = call.get(Math.max(left, 0), TimeUnit.NANOSECONDS).statusCode();
      if (status >= 200 && status < 300) {
        return new Outcome(Result.DELIVERED, null);
      }
      // The receiver refused it for good (4xx), or moved (3xx: redirects are not followed);
      // a timeout, throttling or a server error may pass.
      boolean retry = status >= 500 || status == 408 || status == 429;
      return new Outcome(retry ? Result.FAILED : Result.REFUSED, "HTTP " + status);
    } catch (TimeoutException e) {
      return Outcome.failed("no complete answer within " + timeout.toMillis() + " ms");
    } catch (ExecutionException e) {
      return Outcome.failed(e.getCause().toString());
    } finally {
      call.cancel(true); // nothing when it completed; else aborts the exchange and its connection
    }
  }

  /** Cancels what is still under way and lets the client's threads go. */
  @Override
  public void close() {
    http.shutdownNow();
    lookups.shutdownNow();
  }

  /**
   * {@code sha256=<hex>} with the license's secret; during the overlap after a rotation also a
   * second one with the previous secret, comma-separated: receivers accept the delivery if any
   * signature matches a secret they hold.
   */
  private static String signatures(Delivery d, String timestamp) {
    String current = "sha256=" + sign(d.secret(), timestamp, d.payload());
    return d.previousSecret()
        .map(old -> current + ", sha256=" + sign(old, timestamp, d.payload()))
        .orElse(current);
  }

  /** HMAC-SHA256 of {@code "<timestamp>.<body>"} with {@code secret}, in hex. */
  static String sign(String secret, String timestamp, String body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return HexFormat.of()
          .formatHex(mac.doFinal((timestamp + "." + body).getBytes(StandardCharsets.UTF_8)));
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
