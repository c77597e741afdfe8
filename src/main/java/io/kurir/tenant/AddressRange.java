package io.kurir.tenant;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/** An allowed source address of a license: an IPv4 or IPv6 address, or a CIDR range of either. */
public final class AddressRange {
  private static final Pattern IPV4 =
      Pattern.compile(
          "((25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)");
  private static final Pattern IPV6_CHARS = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");

  private AddressRange() {}

  /** Whether {@code text} is an address or CIDR range, checked without any DNS lookup. */
  public static boolean isValid(String text) {
    String address = text;
    Integer prefix = null;
    int slash = text.indexOf('/');
    if (slash >= 0) {
      address = text.substring(0, slash);
      String bits = text.substring(slash + 1);
      if (!bits.matches("\\d{1,3}")) {
        return false;
      }
      prefix = Integer.parseInt(bits);
    }
    if (IPV4.matcher(address).matches()) {
      return prefix == null || prefix <= 32;
    }
    if (!IPV6_CHARS.matcher(address).matches()) {
      return false; // never a name: InetAddress would try to resolve it
    }
    try {
      InetAddress.getByName(address); // a literal containing ':' is parsed, not resolved
      return prefix == null || prefix <= 128;
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /** Whether {@code address} is the address, or inside the range, {@code range}. */
  public static boolean contains(String range, InetAddress address) {
    String base = range;
    int bits = -1;
    int slash = range.indexOf('/');
    if (slash >= 0) {
      base = range.substring(0, slash);
      bits = Integer.parseInt(range.substring(slash + 1));
    }
    byte[] want;
    try {
      want = InetAddress.getByName(base).getAddress(); // a literal: parsed, never resolved
    } catch (UnknownHostException e) {
      return false;
    }
    byte[] have = address.getAddress();
    if (want.length != have.length) {
      return false;
    }
    int prefix = bits < 0 ? want.length * 8 : bits;
    for (int i = 0; i < prefix; i++) {
      int mask = 0x80 >> (i % 8);
      if ((want[i / 8] & mask) != (have[i / 8] & mask)) {
        return false;
      }
    }
    return true;
  }

  /** The address written as {@code text}, if it is an IP literal (never looked up in DNS). */
  public static java.util.Optional<InetAddress> literal(String text) {
    if (text == null || !(IPV4.matcher(text).matches() || IPV6_CHARS.matcher(text).matches())) {
      return java.util.Optional.empty();
    }
    try {
      return java.util.Optional.of(InetAddress.getByName(text));
    } catch (UnknownHostException e) {
      return java.util.Optional.empty();
    }
  }
}
