package io.kurir.api;

import io.javalin.Javalin;
import io.javalin.compression.CompressionStrategy;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.kurir.message.IdempotencyKeyReused;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP server: one Javalin instance on virtual threads serving every family's route table.
 * Whatever goes wrong, the reply is a short token in the family's style: never a stack trace, never
 * an HTML page, never a redirect.
 */
public final class HttpApi implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HttpApi.class);

  private final Javalin app;
  private final List<RouteTable> tables;

  private HttpApi(Javalin app, List<RouteTable> tables) {
    this.app = app;
    this.tables = tables;
  }

  /**
   * Serves {@code tables} on {@code socket}, which was bound before the gateway started anything
   * else; the server takes it over and closes it when it stops.
   */
  public static HttpApi start(ListeningSocket socket, long maxBodyBytes, List<RouteTable> tables) {
    // The longest prefix first: /v4.0/wa_partner/ is the Partner API's, not /v4.0/'s.
    List<Map.Entry<String, ErrorStyle>> byPrefix =
        tables.stream()
            .flatMap(t -> t.pathPrefixes().stream().map(p -> Map.entry(p, t.errorStyle())))
            .sorted(
                Comparator.comparingInt((Map.Entry<String, ErrorStyle> e) -> e.getKey().length())
                    .reversed())
            .toList();
    Javalin app =
        Javalin.create(
            config -> {
              config.startup.showJavalinBanner = false;
              config.startup.showOldJavalinVersionWarning = false;
              config.concurrency.useVirtualThreads = true;
              config.http.maxRequestSize = maxBodyBytes;
              config.http.prefer405over404 = true;
              // Replies are a few bytes: compressing them costs more than it saves.
              config.http.compressionStrategy = CompressionStrategy.NONE;
              config.router.ignoreTrailingSlashes = true;
              config.router.treatMultipleSlashesAsSingleSlash = true;
              config.jetty.addConnector(
                  (server, httpConfig) -> {
                    ServerConnector connector =
                        new ServerConnector(server, new HttpConnectionFactory(httpConfig));
                    try {
                      connector.open(socket.channel());
                    } catch (IOException e) {
                      throw new UncheckedIOException(e);
                    }
                    return connector;
                  });
              config.jetty.modifyServer(
                  server -> server.setErrorHandler(new PlainErrorHandler(byPrefix)));
              for (RouteTable table : tables) {
                table.addTo(config.routes);
              }
              config.routes.exception(
                  ApiException.class, (e, ctx) -> styleOf(byPrefix, ctx).render(ctx, e));
              // Every family that sends answers a reused key alike, in its own error style.
              config.routes.exception(
                  IdempotencyKeyReused.class,
                  (e, ctx) ->
                      styleOf(byPrefix, ctx)
                          .render(
                              ctx,
                              new ApiException(422, "idempotency_key_reused", e.getMessage())));
              config.routes.exception(
                  HttpResponseException.class,
                  (e, ctx) -> styleOf(byPrefix, ctx).render(ctx, fromJavalin(e)));
              config.routes.exception(
                  Exception.class,
                  (e, ctx) -> {
                    log.error("{} {} failed", ctx.method(), ctx.path(), e);
                    styleOf(byPrefix, ctx)
                        .render(ctx, new ApiException(500, "server_error", "internal error"));
                  });
              config.routes.error(
                  404,
                  "*",
                  ctx -> {
                    if (ctx.result() == null || ctx.result().isEmpty()) { // not a handler's 404
                      styleOf(byPrefix, ctx)
                          .render(ctx, new ApiException(404, "not_found", "no such endpoint"));
                    }
                  });
              config.routes.error(
                  405,
                  "*",
                  ctx ->
                      styleOf(byPrefix, ctx)
                          .render(
                              ctx,
                              new ApiException(
                                  405,
                                  "method_not_allowed",
                                  ctx.method() + " is not allowed here")));
            });
    app.start();
    return new HttpApi(app, tables);
  }

  private static ApiException fromJavalin(HttpResponseException e) {
    return switch (e.getStatus()) {
      case 413 -> new ApiException(413, "body_too_large", "the request body is too large");
      case 404 -> new ApiException(404, "not_found", "not found");
      case 405 -> new ApiException(405, "method_not_allowed", "method not allowed");
      default ->
          e.getStatus() >= 500
              ? new ApiException(500, "server_error", "internal error")
              : new ApiException(e.getStatus(), "bad_request", e.getMessage());
    };
  }

  private static ErrorStyle styleOf(List<Map.Entry<String, ErrorStyle>> byPrefix, Context ctx) {
    String path = ctx.path();
    for (Map.Entry<String, ErrorStyle> prefix : byPrefix) {
      if (path.startsWith(prefix.getKey())) {
        return prefix.getValue();
      }
    }
    return ErrorStyle.PLAIN_TOKEN;
  }

  public int port() {
    return app.port();
  }

  /**
   * Every route this server answers, as {@code "METHOD /path"} with Javalin's {@code {param}}
   * segments, read from the router itself (the API document's test compares them).
   */
  public List<String> servedRoutes() {
    return app.unsafe.internalRouter.allHttpHandlers().stream()
        .filter(e -> e.endpoint.method.isHttpMethod()) // not before/after hooks
        .map(e -> e.endpoint.method.name() + " " + e.endpoint.path)
        .sorted()
        .toList();
  }

  @Override
  public void close() {
    app.stop();
  }

  /**
   * Errors Jetty answers itself, before any route runs (a malformed request line, headers too
   * large): a plain token instead of Jetty's HTML page.
   */
  private static final class PlainErrorHandler extends ErrorHandler {
    private final List<Map.Entry<String, ErrorStyle>> byPrefix;

    PlainErrorHandler(List<Map.Entry<String, ErrorStyle>> byPrefix) {
      this.byPrefix = byPrefix;
    }

    @Override
    protected void generateResponse(
        Request request,
        Response response,
        int code,
        String message,
        Throwable cause,
        Callback callback)
        throws IOException {
      String token =
          switch (code) {
            case 413 -> "body_too_large";
            case 431 -> "headers_too_large";
            case 414 -> "uri_too_long";
            case 404 -> "not_found";
            default -> code >= 500 ? "server_error" : "bad_request";
          };
      String path = request.getHttpURI() == null ? "" : request.getHttpURI().getPath();
      ErrorStyle style = ErrorStyle.PLAIN_TOKEN;
      for (Map.Entry<String, ErrorStyle> prefix : byPrefix) {
        if (path != null && path.startsWith(prefix.getKey())) {
          style = prefix.getValue();
          break;
        }
      }
      String json = ErrorStyle.jsonBodyOf(style, code, token);
      if (json != null) { // the family's own shape, as its routes would answer
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.write(true, StandardCharsets.UTF_8.encode(json), callback);
        return;
      }
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
      response.write(true, StandardCharsets.UTF_8.encode(token), callback);
    }
  }
}
