package io.kurir.api;

/**
 * Told of every request the HTTP server answered (the gateway's metrics). Called on the request's
 * thread after the reply; an implementation must be thread-safe and quick, and must not throw.
 */
@FunctionalInterface
public interface RequestTimer {
  /** Times nothing. */
  RequestTimer NONE = (family, route, method, status, millis) -> {};

  /**
   * @param family the API family whose path prefix the request matched ({@code eco}, {@code admin},
   *     …), or {@code other}
   * @param route the route's path template ({@code /api/send_message}, {@code
   *     /sandbox/phones/{number}/inbox}), or {@code unmatched}: never the raw path, which would
   *     hold ids and keys
   * @param method the HTTP method
   * @param status the reply's status code
   * @param millis how long the request took to answer
   */
  void served(String family, String route, String method, int status, double millis);
}
