package io.kurir.api;

import io.javalin.http.Context;

/** How one API family renders a refused request. */
@FunctionalInterface
public interface ErrorStyle {

  void render(Context ctx, ApiException error);

  /**
   * This style's JSON body for an error Jetty answers before any route runs ({@link #jsonBodyOf}),
   * for a style other than the ones named there; null: none of its own.
   */
  default String bodyBeforeRouting(int status, String token) {
    return null;
  }

  /** The Eco API's style: the token alone as plain text, like the contract's result strings. */
  ErrorStyle PLAIN_TOKEN =
      (ctx, e) -> ctx.status(e.status()).contentType("text/plain; charset=utf-8").result(e.token());

  /**
   * The Account and Partner APIs' style: {@code {"status": "failed", "message": token}}, the shape
   * of their own failures.
   */
  ErrorStyle STATUS_FAILED_JSON = (ctx, e) -> ctx.status(e.status()).json(statusFailed(e.token()));

  /** The CRM API's style: {@code {"status": false, "message": token}}. */
  ErrorStyle STATUS_FALSE_JSON =
      (ctx, e) -> {
        java.util.Map<String, Object> body = new java.util.LinkedHashMap<>();
        body.put("status", false);
        body.put("message", e.token());
        ctx.status(e.status()).json(body);
      };

  /** The multi-agent API's style: {@code {"status": <HTTP status>, "message": token}}. */
  ErrorStyle STATUS_CODE_JSON =
      (ctx, e) -> {
        java.util.Map<String, Object> body = new java.util.LinkedHashMap<>();
        body.put("status", e.status());
        body.put("message", e.token());
        ctx.status(e.status()).json(body);
      };

  /** Push v1's style (OneSignal's): {@code {"errors": [token]}}. */
  ErrorStyle ERRORS_LIST_JSON =
      (ctx, e) ->
          ctx.status(e.status()).json(java.util.Map.of("errors", java.util.List.of(e.token())));

  /** Push v2's style (FCM legacy's): {@code {"error": token}}. */
  ErrorStyle ERROR_JSON =
      (ctx, e) -> ctx.status(e.status()).json(java.util.Map.of("error", e.token()));

  /**
   * Kurir's own JSON APIs (Admin, sandbox): {@code {"error": token, "message": detail}}, then the
   * error's {@link ApiException#details} (an unknown field's {@code field}).
   */
  ErrorStyle KURIR_JSON =
      (ctx, e) -> {
        java.util.Map<String, Object> body = new java.util.LinkedHashMap<>();
        body.put("error", e.token());
        body.put("message", String.valueOf(e.getMessage()));
        body.putAll(e.details());
        ctx.status(e.status()).json(body);
      };

  /** {@code {"status": "failed", "message": message}}, in that order. */
  static java.util.Map<String, Object> statusFailed(String message) {
    java.util.Map<String, Object> body = new java.util.LinkedHashMap<>();
    body.put("status", "failed");
    body.put("message", message);
    return body;
  }

  /**
   * The JSON body of {@code style} for an error Jetty answers before any route runs, where there is
   * no context to render on; null for the plain-token style.
   */
  static String jsonBodyOf(ErrorStyle style, int status, String token) {
    String own = style.bodyBeforeRouting(status, token);
    if (own != null) {
      return own;
    }
    if (style == STATUS_FAILED_JSON) {
      return "{\"status\":\"failed\",\"message\":\"" + token + "\"}";
    } else if (style == STATUS_FALSE_JSON) {
      return "{\"status\":false,\"message\":\"" + token + "\"}";
    } else if (style == STATUS_CODE_JSON) {
      return "{\"status\":" + status + ",\"message\":\"" + token + "\"}";
    } else if (style == ERRORS_LIST_JSON) {
      return "{\"errors\":[\"" + token + "\"]}";
    } else if (style == ERROR_JSON) {
      return "{\"error\":\"" + token + "\"}";
    } else if (style == KURIR_JSON) {
      return "{\"error\":\"" + token + "\",\"message\":\"HTTP " + status + "\"}";
    }
    return null;
  }
}
