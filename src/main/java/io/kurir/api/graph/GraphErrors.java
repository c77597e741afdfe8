package io.kurir.api.graph;

import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.api.ErrorCatalogue;
import io.kurir.api.ErrorStyle;
import io.kurir.content.ContentRefused;
import io.kurir.core.KurirException;
import io.kurir.limit.RateLimited;
import io.kurir.message.ActionRefused;
import io.kurir.message.IdempotencyKeyReused;
import io.kurir.message.SendRefused;
import io.kurir.tenant.TenantException;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Cloud API door's one error catalogue and its style: every refusal is Meta's error object,
 * {@code {"error": {"message", "type": "OAuthException", "code", "error_subcode"?, "error_data"?,
 * "fbtrace_id"}}}, with Meta's codes (developers.facebook.com/docs/whatsapp/cloud-api/support/
 * error-codes; business-messaging-api_v23.0.yaml {@code ErrorObject}): 190 for a token nobody has,
 * 10 for a key without permission, 100 for an invalid parameter (subcode 33 for an object the
 * caller cannot reach), 131008 for a required parameter missing, 131009 for a parameter value not
 * valid, 131051 for a kind of message the number's driver cannot carry, 131053 for a media upload
 * refused, 80007 and 130429 for rate limits, 131016 when the service cannot take the message now.
 *
 * <p>An {@link ApiException} of this family carries Meta's code as its token (and its subcode in
 * its {@code details}); the shared layer's own tokens ({@code not_found}, {@code body_too_large},
 * {@code server_error}, ...) are given Meta's nearest code here, so nothing of the door answers in
 * another shape.
 */
final class GraphErrors {
  private GraphErrors() {}

  static final int BAD_TOKEN = 190;
  static final int PERMISSION = 10;
  static final int INVALID_PARAMETER = 100;
  static final int PARAMETER_MISSING = 131008;
  static final int PARAMETER_NOT_VALID = 131009;
  static final int UNSUPPORTED_TYPE = 131051;
  static final int MEDIA_UPLOAD = 131053;
  static final int APP_RATE_LIMIT = 80007;
  static final int THROUGHPUT = 130429;
  static final int UNAVAILABLE = 131016;
  static final int UNKNOWN = 1;

  /** Meta's subcode for an object id that does not exist or the token cannot reach. */
  static final int NO_SUCH_OBJECT = 33;

  private static final String NO_KEY =
      "Invalid OAuth access token: send Authorization: Bearer <key>, a license's API key or the"
          + " device's Eco key";

  /** A Meta error: HTTP {@code status}, {@code code}, and the sentence people read. */
  static ApiException error(int status, int code, String message) {
    return new ApiException(status, Integer.toString(code), message);
  }

  /** A Meta error with its {@code error_subcode}. */
  static ApiException error(int status, int code, int subcode, String message) {
    return ApiException.withDetails(
        status,
        Integer.toString(code),
        message,
        Map.of("error_subcode", Integer.toString(subcode)));
  }

  /** 400 code 100, subcode 33: the id names nothing this token reaches (Meta's words). */
  static ApiException noSuchObject(String id) {
    return error(
        400,
        INVALID_PARAMETER,
        NO_SUCH_OBJECT,
        "Unsupported request. Object with ID '"
            + id
            + "' does not exist, cannot be loaded due to missing permissions, or does not support"
            + " this operation");
  }

  static final ErrorCatalogue CATALOGUE =
      ErrorCatalogue.builder()
          .add(TenantException.Reason.NOT_FOUND, e -> error(401, BAD_TOKEN, NO_KEY))
          .add(TenantException.Reason.INVALID, e -> error(401, BAD_TOKEN, NO_KEY))
          .add(TenantException.Reason.CONFLICT, e -> error(401, BAD_TOKEN, NO_KEY))
          .add(
              TenantException.Reason.DISABLED,
              e -> error(403, PERMISSION, "The key's device, license or partner is switched off"))
          .add(
              TenantException.Reason.EXPIRED,
              e -> error(403, PERMISSION, "The license has expired: " + e.getMessage()))
          .add(ContentRefused.Reason.CONTENT_EMPTY, e -> error(400, PARAMETER_MISSING, field(e)))
          .add(
              ContentRefused.Reason.CONTENT_NOT_VALID,
              e ->
                  ((ContentRefused) e).field().equals("type")
                      ? error(400, INVALID_PARAMETER, field(e))
                      : error(400, PARAMETER_NOT_VALID, field(e)))
          .add(ContentRefused.Reason.CONTENT_TOO_LONG, e -> error(400, INVALID_PARAMETER, field(e)))
          .add(
              SendRefused.Reason.KIND_NOT_SUPPORTED, e -> error(400, UNSUPPORTED_TYPE, sentence(e)))
          .add(
              SendRefused.Reason.CAPABILITY_NOT_SUPPORTED,
              e -> error(400, PARAMETER_NOT_VALID, sentence(e)))
          .add(
              SendRefused.Reason.MEDIA_TYPE_NOT_SUPPORTED,
              e -> error(400, MEDIA_UPLOAD, sentence(e)))
          .add(SendRefused.Reason.TEXT_TOO_LONG, e -> error(400, INVALID_PARAMETER, sentence(e)))
          .add(
              SendRefused.Reason.TOO_MANY_RECIPIENTS,
              e -> error(400, INVALID_PARAMETER, sentence(e)))
          .add(SendRefused.Reason.DEVICE_BUSY, e -> limited(429, THROUGHPUT, e))
          .add(RateLimited.Reason.RATE_LIMITED, e -> limited(429, APP_RATE_LIMIT, e))
          .add(SendRefused.Reason.STOPPING, e -> error(503, UNAVAILABLE, sentence(e)))
          .add(SendRefused.Reason.BUSY, e -> error(503, UNAVAILABLE, sentence(e)))
          .add(SendRefused.Reason.DRIVER_NOT_LOADED, e -> error(503, UNAVAILABLE, sentence(e)))
          // Read marks: a message the number did not receive is Meta's invalid parameter; a
          // driver without them is 131051 naming it, as a kind it cannot carry.
          .add(
              ActionRefused.Reason.MESSAGE_NOT_FOUND,
              e -> error(400, INVALID_PARAMETER, "Invalid parameter: " + e.getMessage()))
          .add(
              ActionRefused.Reason.CAPABILITY_NOT_SUPPORTED,
              e -> error(400, UNSUPPORTED_TYPE, sentence(e)))
          .add(
              ActionRefused.Reason.NETWORK_REFUSED,
              e -> error(400, PARAMETER_NOT_VALID, sentence(e)))
          .add(ActionRefused.Reason.DEVICE_UNAVAILABLE, e -> error(503, UNAVAILABLE, sentence(e)))
          .add(
              IdempotencyKeyReused.Reason.KEY_REUSED,
              e -> error(422, INVALID_PARAMETER, sentence(e)))
          .build();

  private static String field(KurirException e) {
    return "Invalid parameter: " + e.getMessage();
  }

  private static String sentence(KurirException e) {
    return String.valueOf(e.getMessage());
  }

  private static ApiException limited(int status, int code, KurirException e) {
    return new ApiException(
        status, Integer.toString(code), sentence(e), Math.max(1, e.retryAfterSeconds()));
  }

  /** Meta's code for a token of the shared HTTP layer, which does not know this family's codes. */
  private static int codeOf(ApiException e) {
    String token = e.token();
    if (!token.isEmpty() && token.chars().allMatch(Character::isDigit)) {
      return Integer.parseInt(token);
    }
    return codeOfToken(e.status(), token);
  }

  private static int codeOfToken(int status, String token) {
    return switch (token) {
      case "rate_limited" -> APP_RATE_LIMIT;
      case "device_busy" -> THROUGHPUT;
      case "stopping", "busy", "driver_not_loaded", "secrets_key_changed" -> UNAVAILABLE;
      default -> status >= 500 ? UNKNOWN : INVALID_PARAMETER;
    };
  }

  /** Meta's title of a code, the start of its message ({@code (#131009) ...}). */
  private static String titleOf(int code) {
    return switch (code) {
      case BAD_TOKEN -> "Invalid OAuth access token";
      case PERMISSION -> "Application does not have permission for this action";
      case PARAMETER_MISSING -> "Required parameter is missing";
      case PARAMETER_NOT_VALID -> "Parameter value is not valid";
      case UNSUPPORTED_TYPE -> "Message type is not currently supported";
      case MEDIA_UPLOAD -> "Media upload error";
      case APP_RATE_LIMIT -> "Rate limit hit";
      case THROUGHPUT -> "Rate limit hit";
      case UNAVAILABLE -> "Service unavailable";
      case UNKNOWN -> "An unknown error occurred";
      default -> "Invalid parameter";
    };
  }

  private static final SecureRandom TRACE = new SecureRandom();
  private static final String TRACE_CHARS =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

  /**
   * A trace id in Meta's {@code fbtrace_id} form: a client logs it; Kurir's own log names the
   * request by its route.
   */
  private static String traceId() {
    StringBuilder s = new StringBuilder(11);
    for (int i = 0; i < 11; i++) {
      s.append(TRACE_CHARS.charAt(TRACE.nextInt(TRACE_CHARS.length())));
    }
    return s.toString();
  }

  /** Meta's error object for {@code e}. */
  static Map<String, Object> body(ApiException e) {
    int code = codeOf(e);
    String detail = String.valueOf(e.getMessage());
    Map<String, Object> error = new LinkedHashMap<>();
    error.put("message", "(#" + code + ") " + titleOf(code));
    error.put("type", "OAuthException");
    error.put("code", code);
    String subcode = e.details().get("error_subcode");
    if (subcode != null) {
      error.put("error_subcode", Integer.parseInt(subcode));
    }
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("messaging_product", "whatsapp");
    data.put("details", detail);
    error.put("error_data", data);
    error.put("fbtrace_id", traceId());
    return Map.of("error", error);
  }

  /** The style of every reply the door refuses: Meta's error object. */
  static final ErrorStyle STYLE =
      new ErrorStyle() {
        @Override
        public void render(Context ctx, ApiException e) {
          ctx.status(e.status()).json(body(e));
        }

        @Override
        public String bodyBeforeRouting(int status, String token) {
          int code = codeOfToken(status, token);
          return "{\"error\":{\"message\":\"(#"
              + code
              + ") "
              + titleOf(code)
              + "\",\"type\":\"OAuthException\",\"code\":"
              + code
              + ",\"error_data\":{\"messaging_product\":\"whatsapp\",\"details\":\""
              + token
              + "\"},\"fbtrace_id\":\""
              + traceId()
              + "\"}}";
        }
      };
}
