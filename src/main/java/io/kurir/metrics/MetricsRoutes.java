package io.kurir.metrics;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.api.ErrorStyle;
import io.kurir.api.Guards;
import io.kurir.api.RouteTable;
import java.util.Optional;

/**
 * {@code GET /metrics} in the Prometheus text format, as {@code metrics.access} says: not at all
 * (404 in Kurir's JSON style, as any path that is not served), behind the admin token, or open on
 * the listener of {@code metrics.port}.
 */
public final class MetricsRoutes implements RouteTable {
  /** The Prometheus text exposition format, which every scraper reads. */
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final Optional<GatewayMetrics> metrics;
  private final boolean needsAdminToken;
  private final Optional<String> adminToken;

  private MetricsRoutes(
      Optional<GatewayMetrics> metrics, boolean needsAdminToken, Optional<String> adminToken) {
    this.metrics = metrics;
    this.needsAdminToken = needsAdminToken;
    this.adminToken = adminToken;
  }

  /** No {@code /metrics} here (access off, or served on a port of its own). */
  public static MetricsRoutes notServed() {
    return new MetricsRoutes(Optional.empty(), false, Optional.empty());
  }

  /** {@code /metrics} for Admin API callers; refused like the Admin API while it is off. */
  public static MetricsRoutes behindAdminToken(GatewayMetrics metrics, Optional<String> token) {
    return new MetricsRoutes(Optional.of(metrics), true, token);
  }

  /** {@code /metrics} for anyone who reaches it: the metrics port's own listener. */
  public static MetricsRoutes open(GatewayMetrics metrics) {
    return new MetricsRoutes(Optional.of(metrics), false, Optional.empty());
  }

  @Override
  public String pathPrefix() {
    return "/metrics";
  }

  @Override
  public ErrorStyle errorStyle() {
    return ErrorStyle.KURIR_JSON;
  }

  @Override
  public void addTo(RoutesConfig routes) {
    if (metrics.isPresent()) {
      routes.get("/metrics", this::scrape);
    }
  }

  private void scrape(Context ctx) {
    if (needsAdminToken) {
      if (adminToken.isEmpty()) {
        throw new ApiException(403, "admin_disabled", "set admin.token to read /metrics");
      }
      Guards.requireBearer(ctx, adminToken.get());
    }
    ctx.contentType(CONTENT_TYPE).result(metrics.orElseThrow().scrape());
  }
}
