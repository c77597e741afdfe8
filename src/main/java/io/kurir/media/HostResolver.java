package io.kurir.media;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Looks a host name up. The system's resolver in production; tests give one whose answers they
 * control (a name that resolves to a public address first and to loopback next).
 */
@FunctionalInterface
public interface HostResolver {
  HostResolver SYSTEM = host -> List.of(InetAddress.getAllByName(host));

  List<InetAddress> resolve(String host) throws UnknownHostException;
}
