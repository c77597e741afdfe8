package io.kurir.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A webhook receiver on loopback: it records every request and answers 200, or another status for a
 * while ({@link #answer}, {@link #failNext}), or 500 to the requests it is told to refuse ({@link
 * #refuseWhen}). It counts the events it got more than once ({@link #duplicates}).
 */
public final class WebhookReceiver implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One request received. */
  public record Received(
      String eventId,
      String event,
      String timestamp,
      String signature,
      String type,
      String body,
      String sequence,
      String eventTime) {
    public JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private final HttpServer server;
  private final List<Received> received = new CopyOnWriteArrayList<>();
  private final AtomicInteger answer = new AtomicInteger(200);
  private volatile byte[] answerBody = new byte[0];
  private final AtomicInteger failuresLeft = new AtomicInteger();
  private volatile Predicate<Received> refuse = r -> false;

  public WebhookReceiver() {
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext(
        "/",
        exchange -> {
          String body =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          var h = exchange.getRequestHeaders();
          Received r =
              new Received(
                  h.getFirst("X-Kurir-Event-Id"),
                  h.getFirst("X-Kurir-Event"),
                  h.getFirst("X-Kurir-Timestamp"),
                  h.getFirst("X-Kurir-Signature"),
                  h.getFirst("Content-Type"),
                  body,
                  h.getFirst("X-Kurir-Sequence"),
                  h.getFirst("X-Kurir-Event-Time"));
          received.add(r);
          int status =
              refuse.test(r)
                  ? 500
                  : failuresLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0 ? 503 : answer.get();
          byte[] reply = answerBody;
          exchange.sendResponseHeaders(status, reply.length == 0 ? -1 : reply.length);
          if (reply.length > 0) {
            exchange.getResponseBody().write(reply);
          }
          exchange.close();
        });
    server.start();
  }

  /** The URL to register, e.g. {@code http://127.0.0.1:PORT/hook}. */
  public String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  /** Every request so far, in arrival order. */
  public List<Received> received() {
    return received;
  }

  /** The requests of one event type ({@code X-Kurir-Event}), in arrival order. */
  public List<Received> ofEvent(String event) {
    return received.stream().filter(r -> event.equals(r.event())).toList();
  }

  /** The status answered from now on. */
  public void answer(int status) {
    answer(status, "");
  }

  /** The status and the body answered from now on. */
  public void answer(int status, String body) {
    answerBody = body.getBytes(StandardCharsets.UTF_8);
    answer.set(status);
  }

  /** Answers 503 to the next {@code n} requests. */
  public void failNext(int n) {
    failuresLeft.set(n);
  }

  /** Answers 500 to every request that {@code refused} holds for, from now on. */
  public void refuseWhen(Predicate<Received> refused) {
    refuse = refused;
  }

  /** The distinct events received (by {@code X-Kurir-Event-Id}). */
  public long distinctEvents() {
    return received.stream().map(Received::eventId).distinct().count();
  }

  /**
   * How many events arrived more than once (by {@code X-Kurir-Event-Id}): a receiver that always
   * answers 200 must see none.
   */
  public long duplicates() {
    Map<String, Integer> copies = new HashMap<>();
    long duplicates = 0;
    for (Received r : received) {
      if (copies.merge(r.eventId(), 1, Integer::sum) == 2) {
        duplicates++;
      }
    }
    return duplicates;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
