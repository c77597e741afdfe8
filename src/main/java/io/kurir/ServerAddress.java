package io.kurir;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Collections;

/**
 * The address this gateway can be reached at, as webhook payloads report it ({@code ip_server}).
 */
final class ServerAddress {
  private ServerAddress() {}

  /**
   * The configured host, or when it listens on every interface ({@code 0.0.0.0}, {@code ::}), the
   * first IPv4 address of an interface that is up and not loopback (loopback when there is none).
   */
  static String of(String host) {
    if (!host.equals("0.0.0.0") && !host.equals("::") && !host.equals("[::]")) {
      return host;
    }
    try {
      for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        if (!nic.isUp() || nic.isLoopback()) {
          continue;
        }
        for (InetAddress a : Collections.list(nic.getInetAddresses())) {
          if (a instanceof Inet4Address) {
            return a.getHostAddress();
          }
        }
      }
    } catch (SocketException e) {
      // no interfaces to read: fall through
    }
    return "127.0.0.1";
  }
}
