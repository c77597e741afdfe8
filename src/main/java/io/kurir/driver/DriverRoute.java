package io.kurir.driver;

/**
 * One HTTP route of a driver, as plain data: the gateway's HTTP layer serves it on the gateway's
 * port with the other API families, reads the request into a {@link DriverRequest}, applies the
 * guard its {@link Access} names, writes the {@link DriverReply} back, and renders a {@link
 * RouteException} (or any failure) in Kurir's JSON error style. A driver never sees the HTTP
 * server.
 *
 * @param method the HTTP method
 * @param path the path, with {@code {name}} segments for path parameters ({@code
 *     /drivers/waha/events/{device}})
 * @param access who may call it
 * @param handler what answers it
 */
public record DriverRoute(Method method, String path, Access access, Handler handler) {

  /** The methods a driver's route may take. */
  public enum Method {
    GET,
    POST,
    DELETE
  }

  /** Who may call a route. */
  public enum Access {
    /**
     * Anyone: a network's webhook, which proves itself by its own means (a signature over the raw
     * body, a verify token) inside the handler.
     */
    OPEN,
    /**
     * Operators: a control API, behind the gateway's admin token when one is set ({@code
     * Authorization: Bearer <admin.token>}); open in the demo.
     */
    ADMIN
  }

  /**
   * Answers one request. Called on a request thread (a virtual thread), many at once: it must be
   * thread-safe. Throws {@link RouteException} to refuse the request; anything else it throws is
   * answered 500 {@code server_error} and logged.
   */
  @FunctionalInterface
  public interface Handler {
    DriverReply handle(DriverRequest ctx) throws Exception;
  }

  public static DriverRoute get(String path, Handler handler) {
    return new DriverRoute(Method.GET, path, Access.OPEN, handler);
  }

  public static DriverRoute post(String path, Handler handler) {
    return new DriverRoute(Method.POST, path, Access.OPEN, handler);
  }

  public static DriverRoute delete(String path, Handler handler) {
    return new DriverRoute(Method.DELETE, path, Access.OPEN, handler);
  }

  /** This route, for operators only ({@link Access#ADMIN}). */
  public DriverRoute admin() {
    return new DriverRoute(method, path, Access.ADMIN, handler);
  }
}
