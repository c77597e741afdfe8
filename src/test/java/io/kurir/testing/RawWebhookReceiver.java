package io.kurir.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A webhook receiver on loopback that keeps every request as it came: its path, its raw body bytes
 * (a signature is checked over them, never over re-serialised JSON) and its signature headers
 * ({@code X-Hub-Signature-256}, Standard Webhooks' {@code webhook-*}). Answers 200.
 */
public final class RawWebhookReceiver implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One request, as received. */
  public record Received(
      String path,
      byte[] body,
      String hubSignature,
      String webhookId,
      String webhookTimestamp,
      String webhookSignature) {
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

  public RawWebhookReceiver() {
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext(
        "/",
        exchange -> {
          var h = exchange.getRequestHeaders();
          received.add(
              new Received(
                  exchange.getRequestURI().getPath(),
                  exchange.getRequestBody().readAllBytes(),
                  h.getFirst("X-Hub-Signature-256"),
                  h.getFirst("webhook-id"),
                  h.getFirst("webhook-timestamp"),
                  h.getFirst("webhook-signature")));
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    server.start();
  }

  /** The URL to subscribe, e.g. {@code http://127.0.0.1:PORT/meta}. */
  public String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  /** The requests that came to {@code path}, in arrival order. */
  public List<Received> at(String path) {
    return received.stream().filter(r -> r.path().equals(path)).toList();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
