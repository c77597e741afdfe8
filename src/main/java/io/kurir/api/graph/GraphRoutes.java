package io.kurir.api.graph;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.kurir.api.ErrorCatalogue;
import io.kurir.api.ErrorStyle;
import io.kurir.api.Guards;
import io.kurir.api.RouteTable;
import io.kurir.media.ReceivedMedia;
import io.kurir.media.UploadedMedia;
import io.kurir.message.Sends;
import io.kurir.phone.PhoneNumbers;
import io.kurir.tenant.ApiCaller;
import io.kurir.tenant.ApiScope;
import io.kurir.tenant.Device;
import io.kurir.tenant.Tenants;
import java.time.Clock;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The Cloud API's own door ({@code /graph/}): Kurir answers as Meta's Graph API does, so code
 * written for the WhatsApp Cloud API sends through any Kurir device by changing only its base URL
 * and token. The phone-number id is the device's id; the access token is a license's API key (scope
 * {@code send}) or the device's Eco key. Requests and replies are Meta's (the message object, the
 * media upload and media URL objects), errors Meta's error object ({@link GraphErrors}).
 *
 * <p>Guards: {@link #onDevice} (a token that may use the device the path names) and {@link
 * #anyScope} (a token, for the media routes named by media id).
 */
public final class GraphRoutes implements RouteTable {
  /** A Graph API version as Meta's SDKs write it: {@code v23.0}. */
  private static final Pattern VERSION = Pattern.compile("v\\d{1,3}(\\.\\d{1,3})?");

  private final Tenants tenants;
  private final GraphMessageHandlers messages;
  private final GraphMediaHandlers media;

  /**
   * @param received the files of incoming messages, which {@code GET /{media-id}} resolves by the
   *     incoming message's id (the id a meta webhook subscription's payloads give)
   * @param publicUrl the gateway's public URL ({@code http.public-url}), for the media URLs it
   *     answers; the request's own host when not set
   * @param clock the media URLs' lifetimes
   * @param actions read marks and typing
   */
  public GraphRoutes(
      Tenants tenants,
      Sends sends,
      PhoneNumbers phones,
      UploadedMedia uploads,
      ReceivedMedia received,
      Optional<String> publicUrl,
      Clock clock,
      io.kurir.message.MessageActions actions) {
    this.tenants = tenants;
    this.messages = new GraphMessageHandlers(sends, phones, uploads, actions);
    this.media = new GraphMediaHandlers(tenants, uploads, received, publicUrl, clock);
  }

  @Override
  public String pathPrefix() {
    return "/graph/";
  }

  @Override
  public ErrorStyle errorStyle() {
    return GraphErrors.STYLE;
  }

  @Override
  public ErrorCatalogue errors() {
    return GraphErrors.CATALOGUE;
  }

  @Override
  public void addTo(RoutesConfig r) {
    r.post("/graph/{version}/{phoneNumberId}/messages", onDevice(messages::post));
    r.post("/graph/{version}/{phoneNumberId}/media", onDevice(media::upload));
    r.get("/graph/{version}/{mediaId}", anyScope(media::describe));
    r.delete("/graph/{version}/{mediaId}", anyScope(media::delete));
    r.get(
        "/graph/{version}/{mediaId}/file",
        ctx -> {
          // The URL GET /{media-id} answered is signed: it needs no token (some SDKs send none).
          if (ctx.queryParam("hash") != null) {
            media.downloadSigned(ctx);
          } else {
            anyScope(media::download).handle(ctx);
          }
        });
  }

  /** A handler of a route that names a device: the device the token may use. */
  @FunctionalInterface
  interface DeviceHandler {
    void handle(Context ctx, Device device) throws Exception;
  }

  /** A handler of a route named by a media id: the caller the token is. */
  @FunctionalInterface
  interface CallerHandler {
    void handle(Context ctx, ApiCaller caller) throws Exception;
  }

  /**
   * Guard: the token is a key that may be used (190 otherwise), with the {@code send} scope (code
   * 10), and the path's phone-number id is a device it reaches (100, subcode 33, as Meta answers an
   * id the token cannot reach: another license's device is not told from none); the device, its
   * license and partner are switched on and the license has not expired (code 10).
   */
  private Handler onDevice(DeviceHandler handler) {
    return ctx -> {
      ApiCaller caller = caller(ctx, Set.of(ApiScope.SEND));
      String id = ctx.pathParam("phoneNumberId");
      Device device =
          caller.devices(tenants).stream()
              .filter(d -> Long.toString(d.id()).equals(id))
              .findFirst()
              .orElseThrow(() -> GraphErrors.noSuchObject(id));
      handler.handle(ctx, tenants.usableDevice(device.id()));
    };
  }

  /** Guard: the token is a key that may be used, with the {@code send} or {@code read} scope. */
  private Handler anyScope(CallerHandler handler) {
    return ctx -> handler.handle(ctx, caller(ctx, Set.of(ApiScope.SEND, ApiScope.READ)));
  }

  private ApiCaller caller(Context ctx, Set<ApiScope> scopes) {
    if (!VERSION.matcher(ctx.pathParam("version")).matches()) {
      throw GraphErrors.error(
          400,
          GraphErrors.INVALID_PARAMETER,
          "Unknown path components: /" + ctx.pathParam("version") + " is no Graph API version");
    }
    ApiCaller caller = tenants.apiKeys().caller(token(ctx).orElse(""));
    Guards.countKey(
        ctx,
        caller
            .device()
            .map(d -> "device " + d.id())
            .orElseGet(() -> "api key " + caller.keyId().orElseThrow()));
    if (scopes.stream().noneMatch(caller::has)) {
      throw GraphErrors.error(
          403,
          GraphErrors.PERMISSION,
          "this key does not have the '"
              + scopes.stream()
                  .map(ApiScope::wireName)
                  .sorted()
                  .reduce((a, b) -> a + "' or '" + b)
                  .orElseThrow()
              + "' scope");
    }
    return caller;
  }

  /**
   * The access token: {@code Authorization: Bearer <token>}, or the {@code access_token} query
   * parameter, which the Graph API takes too.
   */
  private static Optional<String> token(Context ctx) {
    String header = Optional.ofNullable(ctx.header("Authorization")).orElse("").strip();
    if (header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return Optional.of(header.substring(7).strip()).filter(s -> !s.isEmpty());
    }
    return Optional.ofNullable(ctx.queryParam("access_token"))
        .map(String::strip)
        .filter(s -> !s.isEmpty());
  }
}
