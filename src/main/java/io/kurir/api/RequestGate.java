package io.kurir.api;

import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import io.kurir.limit.RequestLimits;
import java.util.List;
import java.util.OptionalInt;

/**
 * What every request passes before its route: the redirect from the plain-HTTP port to {@code
 * https://} where the operator set one ({@code server.tls.redirect-port}), then the limit of its
 * client address. It leaves the limits on the request for the family's guard, which counts the
 * caller's key once it knows it ({@link Guards#countKey}).
 *
 * <p>The messaging engines' callbacks ({@code /drivers/…}) are not limited: throttling them would
 * only delay receipts and incoming messages, which their signatures already guard.
 */
final class RequestGate {
  /** The request attribute holding the limits its key is counted against; absent: not counted. */
  static final String LIMITS = "kurir.limits";

  private final RequestLimits limits;
  private final List<String> trustedProxies;
  private final OptionalInt redirectPort;
  private final int httpsPort;

  RequestGate(ListeningSocket socket, RequestLimits limits, List<String> trustedProxies) {
    this.limits = limits;
    this.trustedProxies = trustedProxies;
    this.redirectPort =
        socket.redirect().map(r -> OptionalInt.of(r.port())).orElse(OptionalInt.empty());
    this.httpsPort = socket.port();
  }

  void check(Context ctx) {
    if (redirectPort.isPresent() && ctx.req().getLocalPort() == redirectPort.getAsInt()) {
      // 308, not 301: a client that follows it sends its POST again, body and all.
      ctx.redirect(httpsUrl(ctx), HttpStatus.PERMANENT_REDIRECT);
      ctx.skipRemainingHandlers();
      return;
    }
    if (limits.isOff() || ctx.path().startsWith("/drivers/")) {
      return;
    }
    String address = ClientAddress.of(ctx, trustedProxies);
    if (limits.isExempt(address)) {
      return;
    }
    limits.admitAddress(address);
    ctx.attribute(LIMITS, limits);
  }

  private String httpsUrl(Context ctx) {
    String query = ctx.queryString();
    return "https://"
        + ctx.req().getServerName()
        + (httpsPort == 443 ? "" : ":" + httpsPort)
        + ctx.path()
        + (query == null || query.isEmpty() ? "" : "?" + query);
  }
}
