package io.kurir.api;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.CyclicTimeout;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.io.ssl.SslConnection;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.handler.EventsHandler;
import org.eclipse.jetty.server.internal.HttpConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One deadline for a whole request, head and body ({@code http.request-deadline}): a client that
 * has not sent all of it in time is disconnected. Jetty's idle timeout alone does not do this: a
 * client that sends one byte every few seconds is never idle, and held a connection (and, once its
 * head was in, a handler blocked on its body) for as long as it liked.
 *
 * <p>The deadline starts when a connection opens (a client opens one to send a request), and for
 * each later request on a kept-alive connection at that request's first byte: time a connection
 * spends idle between requests is not the next request's (pooled clients keep connections open for
 * minutes; Jetty's idle timeout closes those). It stops when the head is in and the request has no
 * body, or when the handler has read the body's last byte. A response that takes long to compute is
 * not cut short: once the request is in, the deadline is over. Jetty's own scheduler runs it, on
 * real time: it guards sockets, which live on the machine's clock, not the gateway's injected one.
 *
 * <p>It is a {@link Connection.Listener} on every connector (for connections opening and closing),
 * the outermost handler (for requests' progress) and makes the connectors' HTTP connections (to
 * learn of the first byte of a request: {@link #connectionFactory}). Thread-safe.
 */
final class RequestDeadline extends EventsHandler implements Connection.Listener {
  private static final Logger log = LoggerFactory.getLogger(RequestDeadline.class);

  /**
   * The slowest body that is still waited for: each body byte read adds 1/32768 s to the request's
   * deadline, so an upload at 256 kbit/s or more is never cut however large (a full 16 MB {@code
   * http.max-body} at a 30 s deadline would otherwise need about 4.3 Mbit/s), while a trickler
   * gains nothing worth having (a byte every 2 s earns 61 µs). A constant, not a setting: it says
   * what a working client is, and the deadline remains the one knob.
   */
  static final long MIN_BODY_BYTES_PER_SECOND = 32 * 1024;

  private final long deadlineMillis;
  private final ConcurrentHashMap<Connection, Watch> watches = new ConcurrentHashMap<>();

  RequestDeadline(Duration deadline) {
    this.deadlineMillis = deadline.toMillis();
  }

  @Override
  public void onOpened(Connection connection) {
    if (connection instanceof SslConnection) {
      return; // the HTTP connection above it is watched; closing that closes this one
    }
    Watch watch = new Watch(connection);
    watches.put(connection, watch);
    watch.start();
  }

  @Override
  public void onClosed(Connection connection) {
    Watch watch = watches.remove(connection);
    if (watch != null) {
      watch.destroy();
    }
  }

  /**
   * The HTTP/1.1 connections of a connector, which tell this deadline when bytes arrive: the first
   * ones after a response start the next request's deadline.
   */
  HttpConnectionFactory connectionFactory(HttpConfiguration config) {
    return new HttpConnectionFactory(config) {
      @Override
      public Connection newConnection(Connector connector, EndPoint endPoint) {
        HttpConnection connection =
            new HttpConnection(getHttpConfiguration(), connector, endPoint) {
              @Override
              public void onFillable() {
                // Called when the socket has bytes to read: between requests, the next one's first.
                Watch watch = watches.get(this);
                if (watch != null) {
                  watch.bytesArrived();
                }
                super.onFillable();
              }
            };
        connection.setTransferEncodingChunkMaxLength(getTransferEncodingChunkMaxLength());
        return configure(connection, connector, endPoint);
      }
    };
  }

  @Override
  protected void onBeforeHandling(Request request) {
    Watch watch = watchOf(request);
    if (watch != null) {
      // A head that was already read with the previous request (pipelined) never made the socket
      // readable again: its deadline starts now.
      watch.bytesArrived();
    }
    if (!hasBody(request)) {
      received(request);
    }
  }

  @Override
  protected void onRequestRead(Request request, Content.Chunk chunk) {
    if (chunk != null && chunk.hasRemaining()) {
      Watch watch = watchOf(request);
      if (watch != null) {
        watch.earn(chunk.remaining());
      }
    }
    if (chunk != null && chunk.isLast() && !Content.Chunk.isFailure(chunk)) {
      received(request);
    }
  }

  @Override
  protected void onComplete(Request request, int status, HttpFields headers, Throwable failure) {
    Watch watch = watchOf(request);
    if (watch != null) {
      // Not started yet: the next request's deadline starts at its first byte, not now.
      watch.betweenRequests();
    }
  }

  private void received(Request request) {
    Watch watch = watchOf(request);
    if (watch != null) {
      watch.stop();
    }
  }

  private Watch watchOf(Request request) {
    return watches.get(request.getConnectionMetaData().getConnection());
  }

  /** Whether a body follows the head: a length above zero, or a chunked one. */
  private static boolean hasBody(Request request) {
    return request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING)
        || request.getHeaders().getLongField(HttpHeader.CONTENT_LENGTH) > 0;
  }

  /**
   * The deadline of one connection. A {@link CyclicTimeout}: starting and stopping it on every
   * request costs a few atomic operations, not a task scheduled and cancelled each time.
   */
  private final class Watch extends CyclicTimeout {
    private final Connection connection;

    /** When the running deadline expires, in {@link System#nanoTime()}; guarded by this. */
    private long expiresAtNanos;

    /** Whether the last request was answered and the next one has not sent a byte yet. */
    private final AtomicBoolean idle = new AtomicBoolean();

    Watch(Connection connection) {
      // The server's scheduler: this handler is in its tree before any connection opens.
      super(getServer().getScheduler());
      this.connection = connection;
    }

    synchronized void start() {
      expiresAtNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(deadlineMillis);
      schedule(deadlineMillis, TimeUnit.MILLISECONDS);
    }

    /** Moves the running deadline on by the time {@code bytes} of body take at the minimum rate. */
    synchronized void earn(int bytes) {
      expiresAtNanos += bytes * TimeUnit.SECONDS.toNanos(1) / MIN_BODY_BYTES_PER_SECOND;
      // Only a running deadline moves: one stopped or expired stays so.
      if (cancel()) {
        schedule(Math.max(0, expiresAtNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
      }
    }

    void stop() {
      cancel();
    }

    void betweenRequests() {
      cancel();
      idle.set(true);
    }

    void bytesArrived() {
      if (idle.compareAndSet(true, false)) {
        start();
      }
    }

    @Override
    public void onTimeoutExpired() {
      // DEBUG: a client that is too slow on purpose must not be able to fill the log.
      log.debug(
          "closed a connection from {}: no whole request within {} ms",
          connection.getEndPoint().getRemoteSocketAddress(),
          deadlineMillis);
      // The socket itself, at once: closing the HTTP connection would first answer a request
      // that never arrived (a 500) and wait for the client to read it. A handler blocked on the
      // body learns it as an end of input, like a client's hang-up (HttpApi logs it so).
      connection
          .getEndPoint()
          .close(new EofException("no whole request within " + deadlineMillis + " ms"));
    }
  }
}
