package io.kurir.api;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.kurir.driver.DriverReply;
import io.kurir.driver.DriverRequest;
import io.kurir.driver.DriverRoute;
import io.kurir.driver.DriverRoutes;
import io.kurir.driver.RouteException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A driver's routes ({@link DriverRoutes}, plain data) served as one API family: the one place
 * where a driver's request meets the HTTP server. Each request is guarded as its route's access
 * says (the admin token for {@link DriverRoute.Access#ADMIN}, when one is set and the gateway is
 * not the demo), read into a {@link DriverRequest} (the raw body within the server's body limit, as
 * a network signed it; fields read by {@link RequestFields} only when the handler asks), and the
 * handler's {@link DriverReply} written back. A {@link RouteException} and every other refusal are
 * answered in Kurir's JSON error style.
 */
public final class DriverRouteTable implements RouteTable {
  private final DriverRoutes routes;
  private final Optional<String> adminToken;

  /**
   * @param adminToken the token {@link DriverRoute.Access#ADMIN} routes require; empty for none
   *     (the demo, or a gateway with no admin token)
   */
  public DriverRouteTable(DriverRoutes routes, Optional<String> adminToken) {
    this.routes = routes;
    this.adminToken = adminToken;
  }

  @Override
  public String pathPrefix() {
    return routes.pathPrefix();
  }

  @Override
  public String family() {
    return routes.name();
  }

  @Override
  public ErrorStyle errorStyle() {
    return ErrorStyle.KURIR_JSON;
  }

  @Override
  public void addTo(RoutesConfig r) {
    for (DriverRoute route : routes.routes()) {
      Handler handler = ctx -> serve(route, ctx);
      switch (route.method()) {
        case GET -> r.get(route.path(), handler);
        case POST -> r.post(route.path(), handler);
        case DELETE -> r.delete(route.path(), handler);
      }
    }
  }

  private void serve(DriverRoute route, Context ctx) throws Exception {
    if (route.access() == DriverRoute.Access.ADMIN) {
      adminToken.ifPresent(token -> Guards.requireBearer(ctx, token));
    }
    Map<String, String> headers = new LinkedHashMap<>();
    for (String name : ctx.headerMap().keySet()) {
      headers.put(name, ctx.header(name));
    }
    RequestFields[] fields = new RequestFields[1]; // read once, on the handler's first ask
    DriverRequest request =
        new DriverRequest(
            ctx.pathParamMap(),
            ctx.queryParamMap(),
            headers,
            io.kurir.api.RequestBody.bytes(ctx),
            name -> {
              if (fields[0] == null) {
                fields[0] = RequestFields.of(ctx);
              }
              return fields[0].text(name);
            });
    DriverReply reply;
    try {
      reply = route.handler().handle(request);
    } catch (RouteException e) {
      throw new ApiException(e.status(), e.token(), e.getMessage());
    }
    ctx.status(reply.status());
    reply.headers().forEach(ctx::header);
    ctx.contentType(reply.contentType()).result(reply.body());
  }
}
