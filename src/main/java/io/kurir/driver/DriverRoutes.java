package io.kurir.driver;

import java.util.List;

/**
 * A group of a driver's routes that share a path prefix: the network's webhooks under {@code
 * /drivers/<name>/}, or a control API of its own. Served like one API family of the gateway.
 *
 * @param name the group's name, shown as the {@code family} label of the request metrics ({@code
 *     cloudwebhook}); lower case, unique in the gateway
 * @param pathPrefix every route's path starts with it ({@code /drivers/cloud/}); a request under it
 *     that no route serves is answered in Kurir's JSON error style
 * @param routes the routes
 */
public record DriverRoutes(String name, String pathPrefix, List<DriverRoute> routes) {

  public DriverRoutes {
    routes = List.copyOf(routes);
    for (DriverRoute r : routes) {
      if (!r.path().startsWith(pathPrefix)) {
        throw new IllegalArgumentException(r.path() + " is not under " + pathPrefix);
      }
    }
  }
}
