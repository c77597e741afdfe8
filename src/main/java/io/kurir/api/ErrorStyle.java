package io.kurir.api;

import io.javalin.http.Context;

/** How one API family renders a refused request. */
@FunctionalInterface
public interface ErrorStyle {

  void render(Context ctx, ApiException error);

  /** The Eco API's style: the token alone as plain text, like the contract's result strings. */
  ErrorStyle PLAIN_TOKEN =
      (ctx, e) -> ctx.status(e.status()).contentType("text/plain; charset=utf-8").result(e.token());

  /** Kurir's own JSON APIs (Admin, sandbox): {@code {"error": token, "message": detail}}. */
  ErrorStyle KURIR_JSON =
      (ctx, e) ->
          ctx.status(e.status())
              .json(
                  java.util.Map.of("error", e.token(), "message", String.valueOf(e.getMessage())));
}
