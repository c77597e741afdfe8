package io.kurir.api;

import io.javalin.Javalin;
import io.javalin.compression.CompressionStrategy;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.kurir.config.Settings;
import io.kurir.core.KurirException;
import io.kurir.limit.RequestLimits;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.server.handler.SizeLimitHandler;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP server: one Javalin instance on virtual threads serving every family's route table.
 * Whatever goes wrong, the reply is a short token in the family's style: never a stack trace, never
 * an HTML page, never a redirect (but the operator's own from plain HTTP to {@code https://}).
 */
public final class HttpApi implements AutoCloseable {
  /** The type of a plain text reply: every reply's until a handler sets another. */
  public static final String PLAIN_UTF8 = "text/plain; charset=utf-8";

  private static final Logger log = LoggerFactory.getLogger(HttpApi.class);

  private final Javalin app;
  private final List<RouteTable> tables;

  private HttpApi(Javalin app, List<RouteTable> tables) {
    this.app = app;
    this.tables = tables;
  }

  /**
   * Serves {@code tables} on {@code socket}, which was bound before the gateway started anything
   * else; the server takes it over and closes it when it stops. Every request first passes {@code
   * limits} ({@link RequestGate}).
   */
  public static HttpApi start(
      ListeningSocket socket,
      long maxBodyBytes,
      RequestLimits limits,
      List<String> trustedProxies,
      List<RouteTable> tables) {
    return start(socket, maxBodyBytes, limits, trustedProxies, tables, RequestTimer.NONE);
  }

  /** {@link #start}, telling {@code requests} of every request answered. */
  public static HttpApi start(
      ListeningSocket socket,
      long maxBodyBytes,
      RequestLimits limits,
      List<String> trustedProxies,
      List<RouteTable> tables,
      RequestTimer requests) {
    return start(
        socket, maxBodyBytes, limits, trustedProxies, tables, requests, Settings.Edge.DEFAULT);
  }

  /**
   * {@link #start}, bounding slow and greedy clients as {@code edge} says: one deadline over each
   * request's head and body ({@link RequestDeadline}) and the connections one peer address may hold
   * ({@link ConnectionsPerAddress}; trusted proxies and addresses exempt from {@code limits} are
   * not bounded).
   */
  public static HttpApi start(
      ListeningSocket socket,
      long maxBodyBytes,
      RequestLimits limits,
      List<String> trustedProxies,
      List<RouteTable> tables,
      RequestTimer requests,
      Settings.Edge edge) {
    RequestDeadline deadline = new RequestDeadline(edge.requestDeadline());
    ConnectionsPerAddress perAddress =
        new ConnectionsPerAddress(
            edge.maxConnectionsPerAddress(), trustedProxies, limits::isExempt);
    List<Map.Entry<String, String>> familyByPrefix =
        tables.stream()
            .flatMap(t -> t.pathPrefixes().stream().map(p -> Map.entry(p, familyOf(t))))
            .sorted(
                Comparator.comparingInt((Map.Entry<String, String> e) -> e.getKey().length())
                    .reversed())
            .toList();
    // The longest prefix first: /v4.0/wa_partner/ is the Partner API's, not /v4.0/'s.
    List<Map.Entry<String, ErrorStyle>> byPrefix =
        tables.stream()
            .flatMap(t -> t.pathPrefixes().stream().map(p -> Map.entry(p, t.errorStyle())))
            .sorted(
                Comparator.comparingInt((Map.Entry<String, ErrorStyle> e) -> e.getKey().length())
                    .reversed())
            .toList();
    List<Map.Entry<String, ErrorCatalogue>> errorsByPrefix =
        tables.stream()
            .flatMap(t -> t.errorsByPrefix().entrySet().stream())
            .sorted(
                Comparator.comparingInt(
                        (Map.Entry<String, ErrorCatalogue> e) -> e.getKey().length())
                    .reversed())
            .toList();
    // The server itself, for the routes a 405 names in its Allow header; set once it is made.
    java.util.concurrent.atomic.AtomicReference<Javalin> served =
        new java.util.concurrent.atomic.AtomicReference<>();
    Javalin app =
        Javalin.create(
            config -> {
              // First, before any route is added: they are added to whichever router is set.
              config.unsafe.internalRouter = new IndexedRouter(config.unsafe);
              config.startup.showJavalinBanner = false;
              config.startup.showOldJavalinVersionWarning = false;
              config.concurrency.useVirtualThreads = true;
              config.http.maxRequestSize = maxBodyBytes;
              config.http.prefer405over404 = true;
              // Replies are a few bytes: compressing them costs more than it saves.
              config.http.compressionStrategy = CompressionStrategy.NONE;
              // Every reply starts as UTF-8 text, the gateway API's result strings among them: set
              // once as the request's context is made, not again by each plain answer (setting a
              // type asks the channel whether the reply was committed, under its lock).
              config.http.defaultContentType = PLAIN_UTF8;
              config.router.ignoreTrailingSlashes = true;
              config.router.treatMultipleSlashesAsSingleSlash = true;
              config.jetty.addConnector(
                  (server, httpConfig) ->
                      connector(server, httpConfig, socket, deadline, perAddress));
              socket
                  .redirect()
                  .ifPresent(
                      plain ->
                          config.jetty.addConnector(
                              (server, httpConfig) ->
                                  connector(server, httpConfig, plain, deadline, perAddress)));
              config.jetty.modifyServer(
                  server -> {
                    server.setErrorHandler(new PlainErrorHandler(byPrefix));
                    // The outermost handler, so that it sees every request's body being read;
                    // Javalin puts its own handler inside the innermost wrapper it finds here.
                    server.setHandler(deadline);
                    // http.max-body checked by Jetty before Javalin reads: a declared length over
                    // it
                    // is answered 413 from the head at once (not awaited until the deadline), and a
                    // chunked body growing over it fails its read with a 413 (Javalin's own check
                    // would log a WARN each time, which any client could repeat).
                    deadline.setHandler(new SizeLimitHandler(maxBodyBytes, -1));
                  });
              config.requestLogger.http(
                  (ctx, millis) -> {
                    String family = "other";
                    for (Map.Entry<String, String> prefix : familyByPrefix) {
                      if (ctx.path().startsWith(prefix.getKey())) {
                        family = prefix.getValue();
                        break;
                      }
                    }
                    requests.served(
                        family, routeOf(ctx), ctx.method().name(), ctx.statusCode(), millis);
                  });
              RequestGate gate = new RequestGate(socket, limits, trustedProxies);
              config.routes.before(gate::check);
              for (RouteTable table : tables) {
                table.addTo(config.routes);
              }
              config.routes.exception(
                  ApiException.class, (e, ctx) -> render(styleOf(byPrefix, ctx), ctx, e));
              // The core's refusals, answered as the family's catalogue says; a reason it does not
              // list is a fault like any other.
              config.routes.exception(
                  KurirException.class,
                  (e, ctx) -> {
                    Optional<ApiException> answer = errorsOf(errorsByPrefix, ctx).answer(e);
                    if (answer.isPresent()) {
                      render(styleOf(byPrefix, ctx), ctx, answer.get());
                    } else {
                      log.error("{} {} failed", ctx.method(), routeOf(ctx), e);
                      styleOf(byPrefix, ctx)
                          .render(ctx, new ApiException(500, "server_error", "internal error"));
                    }
                  });
              // A secret sealed with another key (rotated under a running gateway): nothing the
              // caller can fix; said once in the log, without a trace, not per request.
              config.routes.exception(
                  io.kurir.store.SecretsKeyChanged.class,
                  (e, ctx) -> {
                    if (e.first()) {
                      log.error("{} {}: {}", ctx.method(), routeOf(ctx), e.getMessage());
                    } else {
                      log.debug("{} {}: {}", ctx.method(), routeOf(ctx), e.getMessage());
                    }
                    styleOf(byPrefix, ctx)
                        .render(
                            ctx,
                            new ApiException(
                                503,
                                "secrets_key_changed",
                                "the gateway's secrets key no longer opens the database; the"
                                    + " operator must restart it with the new key"));
                  });
              config.routes.exception(
                  HttpResponseException.class,
                  (e, ctx) -> styleOf(byPrefix, ctx).render(ctx, fromJavalin(e)));
              config.routes.exception(
                  Exception.class,
                  (e, ctx) -> {
                    Throwable unreadable = unreadableBody(e);
                    if (unreadable instanceof HttpException tooLarge && tooLarge.getCode() == 413) {
                      log.debug("{} {}: the request body is too large", ctx.method(), routeOf(ctx));
                      styleOf(byPrefix, ctx)
                          .render(
                              ctx,
                              new ApiException(
                                  413, "body_too_large", "the request body is too large"));
                      return;
                    }
                    if (unreadable != null) {
                      // The client's doing (a malformed chunked body, a hang-up mid-body, too
                      // slow for http.request-deadline), which anyone can repeat at will: one
                      // short line at DEBUG, never an ERROR with a trace.
                      log.debug(
                          "{} {}: the request body could not be read: {}",
                          ctx.method(),
                          routeOf(ctx),
                          unreadable.toString());
                      styleOf(byPrefix, ctx)
                          .render(
                              ctx,
                              ApiException.badRequest(
                                  "malformed_body", "the request body could not be read"));
                      return;
                    }
                    // The route's template, not the path: a path may hold a key or license.
                    log.error("{} {} failed", ctx.method(), routeOf(ctx), e);
                    styleOf(byPrefix, ctx)
                        .render(ctx, new ApiException(500, "server_error", "internal error"));
                  });
              config.routes.error(
                  404,
                  "*",
                  ctx -> {
                    if (ctx.result() == null || ctx.result().isEmpty()) { // not a handler's 404
                      styleOf(byPrefix, ctx).render(ctx, ApiException.notFound("no such endpoint"));
                    }
                  });
              config.routes.error(
                  405,
                  "*",
                  ctx -> {
                    // RFC 9110: a 405 names the methods the resource has.
                    String allowed = allowedMethods(served.get(), ctx.path());
                    if (!allowed.isEmpty()) {
                      ctx.header("Allow", allowed);
                    }
                    styleOf(byPrefix, ctx)
                        .render(
                            ctx,
                            new ApiException(
                                405, "method_not_allowed", ctx.method() + " is not allowed here"));
                  });
            });
    served.set(app);
    app.start();
    return new HttpApi(app, tables);
  }

  private static final List<io.javalin.http.HandlerType> METHODS =
      List.of(
          io.javalin.http.HandlerType.GET,
          io.javalin.http.HandlerType.HEAD,
          io.javalin.http.HandlerType.POST,
          io.javalin.http.HandlerType.PUT,
          io.javalin.http.HandlerType.PATCH,
          io.javalin.http.HandlerType.DELETE);

  /** The methods routed for {@code path}, comma-separated: what a 405's Allow header says. */
  private static String allowedMethods(Javalin app, String path) {
    if (app == null) {
      return "";
    }
    return String.join(
        ", ",
        METHODS.stream()
            .filter(m -> app.unsafe.internalRouter.hasHttpHandlerEntry(m, path))
            .map(io.javalin.http.HandlerType::name)
            .toList());
  }

  /** The matched route's template ({@code /api/upload/{key}}), or {@code unmatched}. */
  private static String routeOf(Context ctx) {
    var endpoint = ctx.endpoints().matchedHttpEndpoint();
    return endpoint == null ? "unmatched" : endpoint.path;
  }

  /** The family's name for metrics: {@code EcoRoutes} → {@code eco}. */
  private static String familyOf(RouteTable table) {
    return table.family();
  }

  /**
   * The failure of reading the request body, when that is what {@code e} is: Jetty's end-of-file
   * (the client hung up, or was disconnected by {@link RequestDeadline}) or its refusal of a body
   * that breaks HTTP (a malformed chunk). Null for anything else, which is the gateway's own.
   */
  private static Throwable unreadableBody(Throwable e) {
    int depth = 0;
    for (Throwable t = e; t != null && depth < 10; t = t.getCause(), depth++) {
      if (t instanceof EofException) {
        return t;
      }
      if (t instanceof HttpException http && http.getCode() >= 400 && http.getCode() < 500) {
        return t;
      }
    }
    return null;
  }

  /**
   * A connector on {@code socket}'s channel: TLS when the socket has a certificate. Its connections
   * are watched by {@code deadline} and counted by {@code perAddress}.
   */
  private static ServerConnector connector(
      Server server,
      HttpConfiguration httpConfig,
      ListeningSocket socket,
      RequestDeadline deadline,
      ConnectionsPerAddress perAddress) {
    ServerConnector connector =
        socket
            .tls()
            .map(
                certificate -> {
                  HttpConfiguration https = new HttpConfiguration(httpConfig);
                  // One certificate for whatever name clients use (an IP address, say): no SNI
                  // checks, and no HSTS, which would bind browsers to https for the whole host.
                  https.addCustomizer(new SecureRequestCustomizer(false, false, -1, false));
                  return new ServerConnector(
                      server,
                      new SslConnectionFactory(certificate, "http/1.1"),
                      deadline.connectionFactory(https));
                })
            .orElseGet(() -> new ServerConnector(server, deadline.connectionFactory(httpConfig)));
    connector.addEventListener(perAddress);
    connector.addEventListener(deadline);
    try {
      connector.open(socket.channel());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return connector;
  }

  private static ApiException fromJavalin(HttpResponseException e) {
    return switch (e.getStatus()) {
      case 413 -> new ApiException(413, "body_too_large", "the request body is too large");
      case 404 -> ApiException.notFound("not found");
      case 405 -> new ApiException(405, "method_not_allowed", "method not allowed");
      default ->
          e.getStatus() >= 500
              ? new ApiException(500, "server_error", "internal error")
              : new ApiException(e.getStatus(), "bad_request", e.getMessage());
    };
  }

  private static ErrorStyle styleOf(List<Map.Entry<String, ErrorStyle>> byPrefix, Context ctx) {
    return ofPath(byPrefix, ctx, ErrorStyle.PLAIN_TOKEN);
  }

  private static ErrorCatalogue errorsOf(
      List<Map.Entry<String, ErrorCatalogue>> errorsByPrefix, Context ctx) {
    return ofPath(errorsByPrefix, ctx, ErrorCatalogue.COMMON);
  }

  /** The value of the longest prefix of the request's path, else {@code otherwise}. */
  private static <T> T ofPath(List<Map.Entry<String, T>> byPrefix, Context ctx, T otherwise) {
    String path = ctx.path();
    for (Map.Entry<String, T> prefix : byPrefix) {
      if (path.startsWith(prefix.getKey())) {
        return prefix.getValue();
      }
    }
    return otherwise;
  }

  /** Renders a refusal in {@code style}, with its {@code Retry-After} if it says one. */
  private static void render(ErrorStyle style, Context ctx, ApiException e) {
    if (e.retryAfterSeconds() > 0) {
      ctx.header("Retry-After", Long.toString(e.retryAfterSeconds()));
    }
    style.render(ctx, e);
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
    /**
     * What Jetty's parser found wrong with a request it answers 400, from its reason: keep in sync
     * with the reasons of Jetty's {@code HttpParser} (a reason it changes falls back to {@code
     * bad_request}).
     */
    private static String badRequestToken(String reason) {
      String r = reason == null ? "" : reason.toLowerCase(java.util.Locale.ROOT);
      if (r.contains("no host")) {
        return "host_missing";
      }
      // Bytes HTTP does not allow in the request line or a header: which one, Jetty does not say.
      if (r.contains("illegal character")
          || r.contains("unknown version")
          || r.contains("no uri")
          || r.contains("illegal method")
          || r.contains("unknown method")) {
        return "malformed_request";
      }
      return "bad_request";
    }

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
            // Jetty answers these before any route: the token says what happened.
            case 408 -> "request_timeout";
            case 501 -> "not_implemented";
            // HTTP/2.0 on a request line (Jetty says 426): the version is not spoken here.
            case 505, 426 -> "http_version_not_supported";
            case 400 -> badRequestToken(message);
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
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, PLAIN_UTF8);
      response.write(true, StandardCharsets.UTF_8.encode(token), callback);
    }
  }
}
