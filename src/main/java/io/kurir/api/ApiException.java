package io.kurir.api;

/**
 * A request the API refuses. Handlers throw it; the error style of the request's family renders it
 * (a plain token for the Eco API, JSON for JSON families), so no handler formats an error.
 *
 * @see ErrorStyle
 */
public final class ApiException extends RuntimeException {
  private final int status;
  private final String token;
  private final long retryAfterSeconds;
  private final java.util.Map<String, String> details;

  /**
   * @param status HTTP status
   * @param token short machine-readable reason in the API's style, e.g. {@code invalid_key}
   * @param detail a sentence for people (logs, JSON families), never shown by plain-token families
   */
  public ApiException(int status, String token, String detail) {
    this(status, token, detail, 0);
  }

  /** A refusal whose reply carries {@code Retry-After: retryAfterSeconds} (when above 0). */
  public ApiException(int status, String token, String detail, long retryAfterSeconds) {
    this(status, token, detail, retryAfterSeconds, java.util.Map.of());
  }

  private ApiException(
      int status,
      String token,
      String detail,
      long retryAfterSeconds,
      java.util.Map<String, String> details) {
    super(detail);
    this.status = status;
    this.token = token;
    this.retryAfterSeconds = retryAfterSeconds;
    this.details = details;
  }

  /**
   * Fields a JSON family that has room for them adds to its error body after the token and the
   * sentence, such as the {@code field} of an {@code unknown_field}; plain-token families drop
   * them.
   */
  public java.util.Map<String, String> details() {
    return details;
  }

  /**
   * 400 {@code unknown_field}: the request carries a field the endpoint does not take (a typo such
   * as {@code partnerId} for {@code partner} must not be ignored), named in {@code field}.
   */
  public static ApiException unknownField(String field, String detail) {
    return new ApiException(400, "unknown_field", detail, 0, java.util.Map.of("field", field));
  }

  /**
   * A refusal with {@code details}: fields a JSON family adds to its error body after the token and
   * the sentence (see {@link #details}).
   */
  public static ApiException withDetails(
      int status, String token, String detail, java.util.Map<String, String> details) {
    return new ApiException(status, token, detail, 0, java.util.Map.copyOf(details));
  }

  /** When a retry may succeed, in whole seconds, for the {@code Retry-After} header; 0: none. */
  public long retryAfterSeconds() {
    return retryAfterSeconds;
  }

  public int status() {
    return status;
  }

  public String token() {
    return token;
  }

  /**
   * 404 {@code not_found}: the thing {@code detail} names does not exist (or is not the caller's).
   */
  public static ApiException notFound(String detail) {
    return new ApiException(404, "not_found", detail);
  }

  public static ApiException badRequest(String token, String detail) {
    return new ApiException(400, token, detail);
  }

  /** 400 {@code <field>_empty}. */
  public static ApiException fieldEmpty(String field) {
    return new ApiException(400, field + "_empty", field + " is required");
  }

  /** 400 {@code <field>_not_valid}. */
  public static ApiException fieldNotValid(String field, String detail) {
    return new ApiException(400, field + "_not_valid", detail);
  }
}
