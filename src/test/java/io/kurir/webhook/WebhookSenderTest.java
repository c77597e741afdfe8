package io.kurir.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.kurir.config.Settings;
import io.kurir.media.HostResolver;
import io.kurir.media.SafeFetcher;
import io.kurir.webhook.WebhookStore.Delivery;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A webhook is posted to the address its host's check passed, never to a second answer. */
class WebhookSenderTest {

  @Test
  void aTargetThatResolvesAgainToLoopbackIsPostedToTheCheckedAddress() throws Exception {
    // 127.0.0.2 stands for a public receiver; 127.0.0.1 for a service inside the network.
    HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.2", 0), 0);
    int port = receiver.getAddress().getPort();
    HttpServer internal = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
    AtomicInteger received = new AtomicInteger();
    AtomicInteger internalHits = new AtomicInteger();
    receiver.createContext(
        "/",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          received.incrementAndGet();
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
        });
    internal.createContext(
        "/",
        exchange -> {
          internalHits.incrementAndGet();
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
        });
    receiver.start();
    internal.start();
    AtomicInteger lookups = new AtomicInteger();
    HostResolver rebinding =
        host ->
            List.of(
                InetAddress.getByName(lookups.getAndIncrement() == 0 ? "127.0.0.2" : "127.0.0.1"));
    SafeFetcher targets =
        new SafeFetcher(
            new Settings.Media(1024, false, Duration.ofSeconds(5)),
            rebinding,
            a -> !a.getHostAddress().equals("127.0.0.2"));
    try (WebhookSender sender =
        new WebhookSender(Clock.systemUTC(), targets, Duration.ofSeconds(5))) {
      WebhookSender.Outcome outcome = sender.post(delivery("http://hooks.test:" + port + "/in"));
      assertThat(outcome.result()).isEqualTo(WebhookSender.Result.DELIVERED);
      assertThat(received).hasValue(1);
      assertThat(internalHits).hasValue(0);
      assertThat(lookups).hasValue(1);

      // A target whose only answer is internal is refused for good, without a connection.
      WebhookSender.Outcome refused = sender.post(delivery("http://inside.test:" + port + "/in"));
      assertThat(refused.result()).isEqualTo(WebhookSender.Result.REFUSED);
      assertThat(refused.error()).contains("127.0.0.1");
      assertThat(internalHits).hasValue(0);
    } finally {
      receiver.stop(0);
      internal.stop(0);
    }
  }

  private static Delivery delivery(String url) {
    Instant now = Instant.now();
    return new Delivery(
        1,
        1,
        url,
        "status",
        "{}",
        0,
        now,
        now,
        OptionalLong.empty(),
        "secret",
        Optional.empty(),
        Optional.empty(),
        false,
        1);
  }
}
