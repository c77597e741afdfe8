package io.kurir.metrics;

import io.kurir.api.HttpApi;
import io.kurir.api.ListeningSocket;
import io.kurir.api.RequestTimer;
import io.kurir.api.RouteTable;
import io.kurir.config.Settings;
import io.kurir.limit.RateLimit;
import io.kurir.limit.RequestLimits;
import java.time.Clock;
import java.util.List;
import java.util.OptionalInt;

/**
 * Where {@code /metrics} is served, as {@code metrics.access} says: the routes for the API port,
 * and for {@code port} a listener of its own on {@code server.host:metrics.port} that serves
 * nothing else (a firewall or a network policy can then open it to the scraper alone).
 */
public final class MetricsEndpoint implements AutoCloseable {
  /** A scrape is a GET: no body to accept. */
  private static final long MAX_BODY_BYTES = 1024;

  private final RouteTable apiPortRoutes;
  private final HttpApi ownListener; // null unless metrics.access=port

  private MetricsEndpoint(RouteTable apiPortRoutes, HttpApi ownListener) {
    this.apiPortRoutes = apiPortRoutes;
    this.ownListener = ownListener;
  }

  /** Starts the metrics port's listener when asked for; a taken port fails start-up, naming it. */
  public static MetricsEndpoint start(Settings settings, GatewayMetrics metrics) {
    return switch (settings.metrics().access()) {
      case OFF -> new MetricsEndpoint(MetricsRoutes.notServed(), null);
      case ADMIN ->
          new MetricsEndpoint(
              MetricsRoutes.behindAdminToken(metrics, settings.adminTokenIfSet()), null);
      case PORT -> {
        ListeningSocket socket;
        try {
          socket = ListeningSocket.bind(settings.host(), settings.metrics().port());
        } catch (IllegalStateException e) {
          throw new IllegalStateException(
              "metrics.port: cannot listen on "
                  + settings.host()
                  + ":"
                  + settings.metrics().port()
                  + " ("
                  + (e.getCause() == null ? e.getMessage() : e.getCause().getMessage())
                  + "): stop what uses it, or choose another with --metrics.port=<n>",
              e);
        }
        try {
          // Not limited: a scraper calls every few seconds, and the port is the operator's.
          HttpApi listener =
              HttpApi.start(
                  socket,
                  MAX_BODY_BYTES,
                  new RequestLimits(RateLimit.OFF, RateLimit.OFF, List.of(), Clock.systemUTC()),
                  List.of(),
                  List.of(MetricsRoutes.open(metrics)),
                  RequestTimer.NONE,
                  settings.edge());
          yield new MetricsEndpoint(MetricsRoutes.notServed(), listener);
        } catch (RuntimeException e) {
          socket.close();
          throw e;
        }
      }
    };
  }

  /** What the API port serves at {@code /metrics}. */
  public RouteTable apiPortRoutes() {
    return apiPortRoutes;
  }

  /** The metrics port's own listener's port, when there is one. */
  public OptionalInt ownPort() {
    return ownListener == null ? OptionalInt.empty() : OptionalInt.of(ownListener.port());
  }

  @Override
  public void close() {
    if (ownListener != null) {
      ownListener.close();
    }
  }
}
