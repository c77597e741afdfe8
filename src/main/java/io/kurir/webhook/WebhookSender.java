package io.kurir.webhook;

import io.kurir.media.GuardedHttp;
import io.kurir.media.SafeFetcher;
import io.kurir.webhook.WebhookStore.Delivery;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;

/**
 * One attempt of one delivery: a signed JSON POST (headers in {@code docs/webhooks.md}) under one
 * deadline of {@code timeout} for everything (resolving and checking the host, connecting, sending,
 * the answer's headers and its whole body), so that a receiver that trickles its answer holds a
 * delivery slot no longer than that. At the deadline the exchange is cancelled, which closes its
 * connection. Sent through {@link GuardedHttp}: only to the address that was checked.
 *
 * <p>Thread-safe.
 */
final class WebhookSender implements AutoCloseable {
  /** The times in {@code X-Kurir-Event-Time}: UTC, always with milliseconds, so they sort. */
  static final DateTimeFormatter EVENT_TIME =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private static final MediaType JSON = MediaType.get("application/json");

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
  private final GuardedHttp http;
  private final Duration timeout;

  WebhookSender(Clock clock, SafeFetcher targets, Duration timeout) {
    this.clock = clock;
    this.http = targets.http();
    this.timeout = timeout;
  }

  /**
   * Posts {@code d} and waits for the complete answer, at most {@code timeout}. The target's host
   * is looked up and checked as the connection is made, and the connection goes to the address that
   * was checked.
   *
   * @throws InterruptedException when the outbox is stopping; the exchange is cancelled
   */
  Outcome post(Delivery d) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    HttpUrl url = HttpUrl.parse(d.url());
    if (url == null) {
      return new Outcome(Result.REFUSED, "refused: not an http or https URL");
    }
    String timestamp = Long.toString(clock.instant().getEpochSecond());
    Request.Builder request =
        new Request.Builder()
            .url(url)
            .header("User-Agent", "Kurir-Webhook")
            .post(RequestBody.create(d.payload().getBytes(StandardCharsets.UTF_8), JSON));
    if (d.subscriptionSecret().isPresent() && d.metaFormat()) {
      // A meta subscription's delivery: signed as Meta signs its webhooks, so that receivers
      // written for the Cloud API verify it unchanged (the subscription's secret as app secret).
      request.header(
          MetaWebhooks.SIGNATURE_HEADER,
          MetaWebhooks.signature(d.subscriptionSecret().get(), d.payload()));
    } else if (d.subscriptionSecret().isPresent()) {
      // A subscription's delivery (GET /v1/webhooks): the Standard Webhooks headers only, so that
      // receivers verify it with that spec's libraries. Its id is the delivery's, the same on
      // every attempt, for their de-duplication.
      String id = "msg_" + d.id();
      request
          .header("webhook-id", id)
          .header("webhook-timestamp", timestamp)
          .header(
              "webhook-signature",
              StandardWebhooks.signature(d.subscriptionSecret().get(), id, timestamp, d.payload()));
    } else {
      request
          .header("X-Kurir-Event", d.event())
          .header("X-Kurir-Event-Id", Long.toString(d.id()))
          .header("X-Kurir-Event-Time", EVENT_TIME.format(d.eventAt()))
          .header("X-Kurir-Timestamp", timestamp)
          .header("X-Kurir-Signature", signatures(d, timestamp));
      d.sequence().ifPresent(s -> request.header("X-Kurir-Sequence", Long.toString(s)));
    }
    // The body is read to its end (the answer is complete only once all of it came); its start is
    // kept with a refusal, so that operators see what the receiver said (the console, the CLI).
    GuardedHttp.Exchange<Answer> exchange =
        http.exchange(
            request.build(),
            deadline,
            response -> {
              InputStream body = response.body().byteStream();
              byte[] start = body.readNBytes(ANSWER_KEPT_BYTES);
              body.transferTo(OutputStream.nullOutputStream());
              return new Answer(response.code(), new String(start, StandardCharsets.UTF_8));
            });
    return switch (exchange) {
      case GuardedHttp.Exchange.Answered<Answer> answered -> outcomeOf(answered.value());
      case GuardedHttp.Exchange.Refused<Answer> refused ->
          new Outcome(Result.REFUSED, "refused: " + refused.why());
      case GuardedHttp.Exchange.Failed<Answer> failed -> Outcome.failed(failed.why());
      case GuardedHttp.Exchange.TimedOut<Answer> timedOut ->
          Outcome.failed("no complete answer within " + timeout.toMillis() + " ms");
    };
  }

  /** How much of a receiver's answer is kept with a failed delivery. */
  private static final int ANSWER_KEPT_BYTES = 300;

  /** A receiver's status and the start of its body. */
  private record Answer(int status, String bodyStart) {}

  private static Outcome outcomeOf(Answer answer) {
    int status = answer.status();
    if (status >= 200 && status < 300) {
      return new Outcome(Result.DELIVERED, null);
    }
    // The receiver refused it for good (4xx), or moved (3xx: redirects are not followed);
    // a timeout, throttling or a server error may pass.
    boolean retry = status >= 500 || status == 408 || status == 429;
    String said = answer.bodyStart().replaceAll("\\s+", " ").strip();
    return new Outcome(
        retry ? Result.FAILED : Result.REFUSED,
        "HTTP " + status + (said.isEmpty() ? "" : ": " + said));
  }

  /**
   * Nothing of its own to let go: the client is shared, and an attempt under way ends when the
   * outbox interrupts the thread that waits for it.
   */
  @Override
  public void close() {}

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
