package io.kurir.media;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The addresses a URL that a caller gave may not lead to: loopback, private, link-local (cloud
 * metadata lives there), carrier-grade NAT, benchmarking (198.18.0.0/15), reserved, unique-local,
 * multicast, IPv6 forms that carry such an IPv4 address, NAT64's local-use prefix 64:ff9b:1::/48,
 * every IPv4-mapped address ({@code ::ffff:0:0/96}), and every address of the gateway's own host (a
 * service bound to 0.0.0.0 answers on the host's public address too).
 *
 * <p>Thread-safe.
 */
public final class InternalAddresses {
  private final Supplier<Set<InetAddress>> ownHost;

  /**
   * @param ownHost the addresses of this host's interfaces, asked on every check ({@link
   *     HostAddresses} keeps them fresh without enumerating each time)
   */
  public InternalAddresses(Supplier<Set<InetAddress>> ownHost) {
    this.ownHost = ownHost;
  }

  /** Whether a URL may not lead to {@code a}. */
  public boolean isInternal(InetAddress a) {
    return isReserved(a) || isOwnHost(a);
  }

  private boolean isOwnHost(InetAddress a) {
    byte[] bytes = a.getAddress();
    // Compared by bytes: an interface's IPv6 address carries a scope that a resolved one lacks.
    for (InetAddress own : ownHost.get()) {
      if (Arrays.equals(own.getAddress(), bytes)) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code a} is in a range no caller's URL may reach, whatever host this is. */
  static boolean isReserved(InetAddress a) {
    if (a.isLoopbackAddress()
        || a.isAnyLocalAddress()
        || a.isLinkLocalAddress()
        || a.isSiteLocalAddress()
        || a.isMulticastAddress()) {
      return true;
    }
    byte[] b = a.getAddress();
    if (a instanceof Inet4Address) {
      int first = b[0] & 0xff;
      int second = b[1] & 0xff;
      return first == 0 // "this network"
          || (first == 100 && second >= 64 && second < 128) // carrier-grade NAT
          || (first == 192 && second == 0 && (b[2] & 0xff) == 0) // IETF protocol assignments
          || (first == 198 && (second == 18 || second == 19)) // benchmarking 198.18.0.0/15
          || first >= 240; // reserved and broadcast
    }
    if (a instanceof Inet6Address) {
      return isReservedV6(b);
    }
    return true; // no other kind exists; refuse what cannot be judged
  }

  private static boolean isReservedV6(byte[] b) {
    if ((b[0] & 0xfe) == 0xfc) {
      return true; // unique-local fc00::/7
    }
    if (allZero(b, 0, 10) && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff) {
      // IPv4-mapped ::ffff:a.b.c.d. Java reads a written one as plain IPv4, but a resolver can
      // hand one over as IPv6, and a dual-stack socket then reaches the IPv4 address inside.
      // No public name resolves to this form, so the whole range is refused.
      return true;
    }
    if (prefix(b, 0x00, 0x64, 0xff, 0x9b, 0x00, 0x01)) {
      return true; // NAT64 local use 64:ff9b:1::/48: whatever it translates to is the operator's
    }
    byte[] v4 = embeddedIpv4(b);
    if (v4 != null) {
      try {
        return isReserved(InetAddress.getByAddress(v4));
      } catch (UnknownHostException impossible) {
        return true;
      }
    }
    return false;
  }

  /**
   * The IPv4 address an IPv6 address reaches, for the forms that carry one: IPv4-compatible
   * ::a.b.c.d, IPv4-translated ::ffff:0:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16 and Teredo
   * 2001::/32 (its client address, stored inverted). The IPv4 address inside decides.
   */
  private static byte[] embeddedIpv4(byte[] b) {
    if (allZero(b, 0, 12)) {
      return Arrays.copyOfRange(b, 12, 16);
    }
    if (allZero(b, 0, 8) && (b[8] & 0xff) == 0xff && (b[9] & 0xff) == 0xff && allZero(b, 10, 12)) {
      return Arrays.copyOfRange(b, 12, 16);
    }
    if (prefix(b, 0x00, 0x64, 0xff, 0x9b) && allZero(b, 4, 12)) {
      return Arrays.copyOfRange(b, 12, 16);
    }
    if (prefix(b, 0x20, 0x02)) {
      return Arrays.copyOfRange(b, 2, 6);
    }
    if (prefix(b, 0x20, 0x01, 0x00, 0x00)) {
      byte[] client = Arrays.copyOfRange(b, 12, 16);
      for (int i = 0; i < client.length; i++) {
        client[i] = (byte) ~client[i];
      }
      return client;
    }
    return null;
  }

  private static boolean prefix(byte[] b, int... expected) {
    for (int i = 0; i < expected.length; i++) {
      if ((b[i] & 0xff) != expected[i]) {
        return false;
      }
    }
    return true;
  }

  private static boolean allZero(byte[] b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return true;
  }
}
