package io.kurir.api;

import io.javalin.http.Context;
import io.kurir.tenant.AddressRange;
import java.net.InetAddress;
import java.util.List;
import java.util.Optional;

/**
 * The address of the client that made a request. It is the connection's address, unless that is one
 * of the operator's trusted reverse proxies: then {@code X-Forwarded-For} is read from the right,
 * skipping the trusted proxies, and its first other address is the client's. A header from anyone
 * else is ignored, since any client can write one.
 */
public final class ClientAddress {
  private ClientAddress() {}

  public static String of(Context ctx, List<String> trustedProxies) {
    String remote = ctx.req().getRemoteAddr();
    String forwarded = ctx.header("X-Forwarded-For");
    if (trustedProxies.isEmpty() || forwarded == null || !trusted(remote, trustedProxies)) {
      return remote;
    }
    String[] hops = forwarded.split(",");
    for (int i = hops.length - 1; i >= 0; i--) {
      String hop = hops[i].strip();
      if (!trusted(hop, trustedProxies)) {
        return AddressRange.literal(hop).isPresent() ? hop : remote;
      }
    }
    return hops[0].strip();
  }

  private static boolean trusted(String address, List<String> trustedProxies) {
    Optional<InetAddress> literal = AddressRange.literal(address);
    return literal.isPresent()
        && trustedProxies.stream().anyMatch(range -> AddressRange.contains(range, literal.get()));
  }
}
