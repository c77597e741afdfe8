package io.kurir.tenant;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/** An allowed source address of a license: an IPv4 or IPv6 address, or a CIDR range of either. */
final class AddressRange {
  private static final Pattern IPV4 =
      Pattern.compile(
          "((25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)");
  private static final Pattern IPV6_CHARS = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");

  private AddressRange() {}

  /** Whether {@code text} is an address or CIDR range, checked without any DNS lookup. */
  static boolean isValid(String text) {
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
}
