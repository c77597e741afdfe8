package io.kurir.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * How the fake engines ({@link FakeWaha}, {@link FakeGowa}) post their webhooks to Kurir: a JSON
 * body with the engine's own headers, signed as the engine signs it; the status Kurir answered.
 */
final class FakeWebhooks {
  private FakeWebhooks() {}

  /**
   * Posts {@code body} to {@code url} with {@code headers}; the HTTP status Kurir answered, -1 when
   * it answered nothing (closed, unreachable, interrupted).
   */
  static int post(HttpClient http, String url, byte[] body, Map<String, String> headers) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    headers.forEach(b::header);
    try {
      return http.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      // Said, so that a test which waits for what this post carried tells why it never came.
      System.err.println("fake engine: the webhook post to " + url + " got no answer: " + e);
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /**
   * Posts as {@link #post}, and when Kurir does not answer 2xx tries again in the background after
   * each of {@code retryAfter} in turn (real time, as an engine's in-memory retry does) until one
   * try is answered 2xx or {@code stopped} holds (the fake was closed); the first try's status.
   */
  static int postRetrying(
      HttpClient http,
      String url,
      byte[] body,
      Map<String, String> headers,
      List<Duration> retryAfter,
      BooleanSupplier stopped) {
    int first = post(http, url, body, headers);
    if (!ok(first) && !retryAfter.isEmpty()) {
      Thread.ofVirtual()
          .name("fake-webhook-retries")
          .start(
              () -> {
                for (Duration wait : retryAfter) {
                  try {
                    Thread.sleep(wait);
                  } catch (InterruptedException e) {
                    return;
                  }
                  if (stopped.getAsBoolean()) {
                    return;
                  }
                  int status = post(http, url, body, headers);
                  System.err.println(
                      "fake engine: the webhook post to " + url + " tried again: " + status);
                  if (ok(status)) {
                    return;
                  }
                }
              });
    }
    return first;
  }

  private static boolean ok(int status) {
    return status >= 200 && status < 300;
  }

  /** The hex HMAC of {@code body} with {@code key}, by {@code algorithm} ({@code HmacSHA256}…). */
  static String hmac(String algorithm, String key, byte[] body) {
    try {
      Mac mac = Mac.getInstance(algorithm);
      mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), algorithm));
      return HexFormat.of().formatHex(mac.doFinal(body));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
