package io.kurir.api;

import io.javalin.config.RoutesConfig;

/** The routes of one API family, listed on one screen, and how that family renders errors. */
public interface RouteTable {

  /** Paths starting with this prefix belong to the family, e.g. {@code /api/}. */
  String pathPrefix();

  /** Every prefix of the family's paths, for a family served under several. */
  default java.util.List<String> pathPrefixes() {
    return java.util.List.of(pathPrefix());
  }

  ErrorStyle errorStyle();

  void addTo(RoutesConfig routes);
}
