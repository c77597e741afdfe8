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

  /**
   * The family's name, the {@code family} label of the request metrics: the class's name without
   * {@code Routes}, in lower case ({@code EcoRoutes} → {@code eco}).
   */
  default String family() {
    return getClass().getSimpleName().replaceAll("Routes$", "").toLowerCase(java.util.Locale.ROOT);
  }

  ErrorStyle errorStyle();

  /**
   * The family's answers to the core's refusals ({@link io.kurir.core.KurirException}), rendered in
   * its {@link #errorStyle}; {@link ErrorCatalogue#COMMON} unless the family answers more.
   */
  default ErrorCatalogue errors() {
    return ErrorCatalogue.COMMON;
  }

  /**
   * The catalogue per path prefix, the longest prefix winning: {@link #errors} for each of {@link
   * #pathPrefixes}, unless a family whose endpoints name their credentials or fields differently
   * gives an endpoint a catalogue of its own.
   */
  default java.util.Map<String, ErrorCatalogue> errorsByPrefix() {
    java.util.Map<String, ErrorCatalogue> byPrefix = new java.util.LinkedHashMap<>();
    pathPrefixes().forEach(p -> byPrefix.put(p, errors()));
    return byPrefix;
  }

  void addTo(RoutesConfig routes);
}
