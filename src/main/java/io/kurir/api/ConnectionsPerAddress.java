package io.kurir.api;

import io.kurir.tenant.AddressRange;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.SocketChannelEndPoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bound on connections one peer address holds open at once ({@code
 * http.max-connections-per-address}): a connection over it is closed as soon as it opens, before a
 * byte of it is read. Answering 429 would mean reading a request head from a client that may be
 * trickling it, which is the very thing the bound is against.
 *
 * <p>The address is the socket's peer, never {@code X-Forwarded-For}: the bound is about sockets. A
 * trusted reverse proxy ({@code http.trusted-proxies}) carries every client's requests, and the
 * addresses of {@code limits.exempt} (the gateway's own machine by default) are never limited, so
 * neither is bounded.
 *
 * <p>Thread-safe: Jetty tells it of connections from its selector threads.
 */
final class ConnectionsPerAddress implements Connection.Listener {
  private static final Logger log = LoggerFactory.getLogger(ConnectionsPerAddress.class);

  private final int max;
  private final Predicate<InetAddress> exempt;
  private final ConcurrentHashMap<InetAddress, Integer> open = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<Connection, InetAddress> counted = new ConcurrentHashMap<>();

  /**
   * @param max connections per address; 0: no bound
   * @param trustedProxies ranges whose connections are not counted
   * @param exempt whether an address (as an IP literal) is never limited
   */
  ConnectionsPerAddress(int max, List<String> trustedProxies, Predicate<String> exempt) {
    this.max = max;
    this.exempt =
        address ->
            trustedProxies.stream().anyMatch(range -> AddressRange.contains(range, address))
                || exempt.test(address.getHostAddress());
  }

  @Override
  public void onOpened(Connection connection) {
    InetAddress peer = peerToCount(connection);
    if (peer == null) {
      return;
    }
    counted.put(connection, peer);
    int now = open.merge(peer, 1, Integer::sum);
    if (now > max) {
      // DEBUG: whoever is refused must not be able to fill the log with their refusals.
      log.debug(
          "closed a connection from {}: it already holds {} (at most {})", peer, now - 1, max);
      connection.getEndPoint().close();
    }
  }

  @Override
  public void onClosed(Connection connection) {
    // Remembered, not asked again: a closed socket no longer knows its peer.
    InetAddress peer = counted.remove(connection);
    if (peer != null) {
      open.computeIfPresent(peer, (address, n) -> n <= 1 ? null : n - 1);
    }
  }

  /**
   * The peer address of a connection that counts: one on a socket of its own (with TLS, the
   * encrypting connection, not the HTTP one above it), from an address that is bounded.
   */
  private InetAddress peerToCount(Connection connection) {
    if (max <= 0
        || !(connection.getEndPoint() instanceof SocketChannelEndPoint endPoint)
        || !(endPoint.getRemoteSocketAddress() instanceof InetSocketAddress remote)
        || remote.getAddress() == null
        || exempt.test(remote.getAddress())) {
      return null;
    }
    return remote.getAddress();
  }
}
