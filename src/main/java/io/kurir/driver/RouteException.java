package io.kurir.driver;

/**
 * A request a driver's route refuses. The handler throws it; the HTTP layer answers it in Kurir's
 * JSON error style, {@code {"error": token, "message": detail}}, as it answers the Admin API's
 * refusals, so that no route formats an error.
 */
public final class RouteException extends RuntimeException {
  private final int status;
  private final String token;

  /**
   * @param status HTTP status, 4xx or 503
   * @param token short machine-readable reason, such as {@code signature_not_valid}
   * @param detail a sentence for people
   */
  public RouteException(int status, String token, String detail) {
    super(detail);
    this.status = status;
    this.token = token;
  }

  public int status() {
    return status;
  }

  public String token() {
    return token;
  }

  public static RouteException badRequest(String token, String detail) {
    return new RouteException(400, token, detail);
  }

  /** 400 {@code <field>_empty}. */
  public static RouteException fieldEmpty(String field) {
    return new RouteException(400, field + "_empty", field + " is required");
  }

  /** 400 {@code <field>_not_valid}. */
  public static RouteException fieldNotValid(String field, String detail) {
    return new RouteException(400, field + "_not_valid", detail);
  }
}
