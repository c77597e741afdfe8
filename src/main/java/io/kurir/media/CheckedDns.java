package io.kurir.media;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import okhttp3.Dns;

/**
 * The HTTP client's only resolver for caller-given URLs: it looks the host up once, refuses the
 * whole host when any address is internal, and hands the client exactly the addresses it checked.
 * The client connects to nothing else, so a DNS answer that changes between a check and the
 * connection (rebinding) has no second lookup to change.
 *
 * <p>Thread-safe.
 */
final class CheckedDns implements Dns {
  private final HostResolver resolver;
  private final Predicate<InetAddress> internal;
  private final boolean allowInternal;

  CheckedDns(HostResolver resolver, Predicate<InetAddress> internal, boolean allowInternal) {
    this.resolver = resolver;
    this.internal = internal;
    this.allowInternal = allowInternal;
  }

  @Override
  public List<InetAddress> lookup(String host) throws UnknownHostException {
    List<InetAddress> addresses;
    try {
      addresses = resolver.resolve(host);
    } catch (UnknownHostException e) {
      throw new UnknownHostException("unknown host " + host);
    }
    if (addresses.isEmpty()) {
      throw new UnknownHostException("unknown host " + host);
    }
    Optional<String> refused = refusal(host, addresses);
    if (refused.isPresent()) {
      throw new RefusedAddressException(refused.get());
    }
    return List.copyOf(addresses);
  }

  /** Why a URL may not lead to {@code host} at {@code addresses}, if it may not. */
  Optional<String> refusal(String host, List<InetAddress> addresses) {
    if (allowInternal) {
      return Optional.empty();
    }
    for (InetAddress a : addresses) {
      if (internal.test(a)) {
        return Optional.of(host + " is an internal address (" + a.getHostAddress() + ")");
      }
    }
    return Optional.empty();
  }
}
