package io.kurir.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Clients that post async sends as fast as they can to the gateway processes up now ({@link
 * ServeProcess}), for the tests that kill them with {@code kill -9} ({@code CrashTest}, {@code
 * FailoverPostgresTest}). Each client takes the gateways up now in turn; a request cut off by a
 * kill is not accepted and not counted, and its client waits until another gateway is up. Only what
 * was answered with an id is accepted. Also the admin calls those tests make before the load.
 *
 * <p>Thread-safe: the test's thread changes the gateways up while the clients run.
 */
public final class SendLoad implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One request of a client: a POST of {@code json} to {@code path}; {@code text} is its mark. */
  public record Send(String path, String json, String text) {
    /** The endpoint of an async send with an image by URL. */
    public static final String IMAGE_URL = "/api/async_send_image_url";

    /**
     * An Eco API async send of {@code text} to {@code to} through the device with {@code key}; with
     * the image at {@code imageUrl} when it is not null.
     */
    public static Send async(String key, String to, String text, String imageUrl) {
      String json =
          "{\"key\":\""
              + key
              + "\",\"phone_no\":\""
              + to
              + "\",\"message\":\""
              + text
              + (imageUrl == null ? "" : "\",\"url\":\"" + imageUrl)
              + "\"}";
      return new Send(imageUrl == null ? "/api/async_send_message" : IMAGE_URL, json, text);
    }
  }

  /** The {@code n}th request of client {@code client}. */
  @FunctionalInterface
  public interface Sends {
    Send next(int client, int n);
  }

  /** Accepted messages: id → the text that marks them. */
  public final Map<Long, String> accepted = new ConcurrentHashMap<>();

  /** Requests cut off by a kill (not accepted). */
  public final AtomicInteger cutOff = new AtomicInteger();

  private final Map<String, AtomicInteger> acceptedByPath = new ConcurrentHashMap<>();
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();
  private final String adminToken;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final List<String> up = new ArrayList<>(); // guarded by lock
  private boolean running = true; // guarded by lock
  private final List<Thread> clients = new ArrayList<>();

  public SendLoad(String adminToken) {
    this.adminToken = adminToken;
  }

  /** The gateway at {@code url} takes requests from now on. */
  public void up(String url) {
    lock.lock();
    try {
      up.add(url);
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** The gateway at {@code url} takes no more requests (it is about to be killed or stopped). */
  public void down(String url) {
    lock.lock();
    try {
      up.remove(url);
    } finally {
      lock.unlock();
    }
  }

  /** Starts {@code count} clients, each making its requests with {@code sends}. */
  public void start(int count, Sends sends) {
    for (int i = 0; i < count; i++) {
      int client = i;
      clients.add(Thread.ofPlatform().name("client-" + i).start(() -> run(client, sends)));
    }
  }

  /** Accepted requests to {@code path} (an endpoint of the load). */
  public int acceptedAt(String path) {
    AtomicInteger n = acceptedByPath.get(path);
    return n == null ? 0 : n.get();
  }

  /** Stops the clients: each ends after its request under way. */
  public void stop() throws InterruptedException {
    lock.lock();
    try {
      running = false;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    for (Thread t : clients) {
      t.join(Duration.ofSeconds(15));
    }
  }

  /**
   * The gateway for request {@code n}: one up now other than {@code failed} (the one that cut the
   * last request off), waiting for one; null once stopped.
   */
  private String awaitGateway(int n, String failed) throws InterruptedException {
    lock.lock();
    try {
      while (running && (up.isEmpty() || (up.size() == 1 && up.contains(failed)))) {
        changed.await(1, TimeUnit.SECONDS); // woken by up(); the bound only rechecks
      }
      if (!running) {
        return null;
      }
      List<String> candidates = new ArrayList<>(up);
      candidates.remove(failed);
      return candidates.get(Math.floorMod(n, candidates.size()));
    } finally {
      lock.unlock();
    }
  }

  private void run(int client, Sends sends) {
    String failed = null;
    for (int n = 0; ; n++) {
      String base;
      try {
        base = awaitGateway(client + n, failed);
      } catch (InterruptedException e) {
        return;
      }
      if (base == null) {
        return;
      }
      Send send = sends.next(client, n);
      try {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(URI.create(base + send.path()))
                    .timeout(Duration.ofSeconds(15))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(send.json()))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200 && r.body().matches("\\d+")) {
          accepted.put(Long.parseLong(r.body()), send.text());
          acceptedByPath.computeIfAbsent(send.path(), p -> new AtomicInteger()).incrementAndGet();
        }
        failed = null;
      } catch (IOException e) {
        cutOff.incrementAndGet(); // killed mid-request: not accepted, not counted
        failed = base;
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** An admin POST; fails the test unless it answers 200 or 201. */
  public JsonNode post(String base, String path, String json) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(base + path))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + adminToken)
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(path + ": " + r.body()).isBetween(200, 201);
    return JSON.readTree(r.body());
  }

  /** An admin GET; fails the test unless it answers 200. */
  public JsonNode get(String base, String path) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(base + path))
                .header("Authorization", "Bearer " + adminToken)
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  @Override
  public void close() throws InterruptedException {
    stop();
    http.close();
  }
}
