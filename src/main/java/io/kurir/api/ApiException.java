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

  /** When a retry may succeed, in whole seconds, for the {@code Retry-After} header; 0: none. */
  public long retryAfterSeconds() {
    return retryAfterSeconds;
  }

  /**
   * 429 {@code device_busy}: a sync send's device is online but has more sync sends waiting than it
   * can send in time, and nothing of this request went out (so a retry cannot send twice).
   */
  public static ApiException deviceBusy(String detail, long retryAfterSeconds) {
    return new ApiException(429, "device_busy", detail, retryAfterSeconds);
  }

  /** {@link #deviceBusy} for a sync send whose wait ended while its device was busy. */
  public static ApiException deviceBusyAfterWait(long retryAfterSeconds) {
    return deviceBusy(
        "the device is online but busy with other sync sends; nothing was sent, retry after "
            + retryAfterSeconds
            + " s",
        retryAfterSeconds);
  }

  public int status() {
    return status;
  }

  public String token() {
    return token;
  }

  /**
   * A send the core refused, for the families whose only text field is {@code textField}: 400
   * {@code <textField>_too_long}, 429 {@code device_busy} (with Retry-After), or 503 {@code
   * stopping}.
   */
  public static ApiException ofRefusal(io.kurir.message.SendRefused e, String textField) {
    return switch (e.reason()) {
      case TEXT_TOO_LONG -> badRequest(textField + "_too_long", e.getMessage());
      case TOO_MANY_RECIPIENTS -> badRequest("phone_no_too_many", e.getMessage());
      case STOPPING -> new ApiException(503, "stopping", e.getMessage());
      case BUSY -> new ApiException(503, "busy", e.getMessage());
      case DRIVER_NOT_LOADED -> new ApiException(503, "driver_not_loaded", e.getMessage());
      case DEVICE_BUSY -> deviceBusy(e.getMessage(), e.retryAfterSeconds());
      case MEDIA_TYPE_NOT_SUPPORTED -> badRequest("media_type_not_supported", e.getMessage());
    };
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
