package io.kurir.health;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.kurir.api.ErrorStyle;
import io.kurir.api.RouteTable;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code /health/live} and {@code /health/ready}, without credentials (a probe has none): 200 or
 * 503 with a small JSON body that names each check and never holds a secret or an address.
 *
 * <ul>
 *   <li>live: the process answers HTTP. A platform restarts a gateway that stops answering it.
 *   <li>ready: it can take and send messages ({@link Health}). A load balancer sends traffic only
 *       to a gateway that is ready.
 * </ul>
 */
public final class HealthRoutes implements RouteTable {
  private final Health health;

  public HealthRoutes(Health health) {
    this.health = health;
  }

  @Override
  public String pathPrefix() {
    return "/health";
  }

  @Override
  public ErrorStyle errorStyle() {
    return ErrorStyle.KURIR_JSON;
  }

  @Override
  public void addTo(RoutesConfig routes) {
    routes.get("/health/live", ctx -> ctx.json(Map.of("status", "up")));
    routes.get("/health/ready", this::ready);
  }

  private void ready(Context ctx) {
    Health.Readiness readiness = health.readiness();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", readiness.ready() ? "ready" : "not_ready");
    body.put("checks", readiness.checks());
    ctx.status(readiness.ready() ? 200 : 503).json(body);
  }
}
