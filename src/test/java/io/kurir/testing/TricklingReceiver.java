package io.kurir.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A webhook receiver that answers a byte a second, on a raw socket on loopback: the slow or hostile
 * receiver a webhook deadline must hold out against. It reads each request whole, then trickles a
 * 200 answer with an hour-long body, either after sending the headers at once ({@link
 * Trickle#BODY}) or from its first byte ({@link Trickle#EVERYTHING}). It records when each
 * connection was accepted and when the caller closed it.
 */
public final class TricklingReceiver implements AutoCloseable {
  /** What is trickled. */
  public enum Trickle {
    BODY,
    EVERYTHING
  }

  /** One connection: when it was accepted, and (once it is) when the caller closed it. */
  public record Connection(long acceptedNanos, CompletableFuture<Long> closedNanos) {}

  private static final int BODY_BYTES = 3600;

  private final ServerSocket server;
  private final Trickle trickle;
  private final List<Connection> connections = new CopyOnWriteArrayList<>();
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService ticks =
      Executors.newScheduledThreadPool(
          2, r -> Thread.ofPlatform().daemon(true).name("trickle").unstarted(r));

  public TricklingReceiver(Trickle trickle) {
    this.trickle = trickle;
    try {
      server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Thread.ofVirtual().name("trickling-receiver").start(this::acceptLoop);
  }

  /** A URL on this receiver, e.g. {@code http://127.0.0.1:PORT/slow}. */
  public String url(String path) {
    return "http://127.0.0.1:" + server.getLocalPort() + path;
  }

  /** Every connection so far, in the order they were accepted. */
  public List<Connection> connections() {
    return connections;
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket socket = server.accept();
        Connection c = new Connection(System.nanoTime(), new CompletableFuture<>());
        connections.add(c);
        sockets.add(socket);
        Thread.ofVirtual().start(() -> serve(socket, c));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void serve(Socket socket, Connection c) {
    AtomicReference<ScheduledFuture<?>> ticking = new AtomicReference<>();
    try (socket) {
      InputStream in = socket.getInputStream();
      readRequest(in);
      byte[] head =
          String.format(
                  Locale.ROOT,
                  "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n",
                  BODY_BYTES)
              .getBytes(StandardCharsets.US_ASCII);
      byte[] answer = new byte[head.length + BODY_BYTES];
      System.arraycopy(head, 0, answer, 0, head.length);
      java.util.Arrays.fill(answer, head.length, answer.length, (byte) 'x');
      OutputStream out = socket.getOutputStream();
      int[] next = {0};
      if (trickle == Trickle.BODY) {
        out.write(head);
        out.flush();
        next[0] = head.length;
      }
      ticking.set(
          ticks.scheduleAtFixedRate(
              () -> {
                try {
                  if (next[0] < answer.length) {
                    out.write(answer[next[0]++]);
                    out.flush();
                  }
                } catch (IOException closed) {
                  c.closedNanos().complete(System.nanoTime());
                  throw new UncheckedIOException(closed); // ends the schedule
                }
              },
              0,
              1,
              TimeUnit.SECONDS));
      // The caller sends nothing more: the read ends when it closes the connection.
      while (in.read() >= 0) {
        // discard
      }
    } catch (IOException e) {
      // reset by the caller: closed too
    } finally {
      c.closedNanos().complete(System.nanoTime());
      if (ticking.get() != null) {
        ticking.get().cancel(false);
      }
    }
  }

  /** Reads the request head and its body (by Content-Length). */
  private static void readRequest(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("closed before the request ended");
      }
      head.append((char) b);
    }
    int length = 0;
    for (String line : head.toString().split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring(15).strip());
      }
    }
    in.readNBytes(length);
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      // closing anyway
    }
    for (Socket s : sockets) {
      try {
        s.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
    ticks.shutdownNow();
  }
}
