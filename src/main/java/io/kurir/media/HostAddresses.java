package io.kurir.media;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The addresses of this host's network interfaces, up or down, enumerated again once a minute at
 * most: an address a lease or an operator adds is refused within a minute, and a busy webhook
 * outbox does not enumerate the interfaces for every delivery.
 *
 * <p>Thread-safe.
 */
public final class HostAddresses implements Supplier<Set<InetAddress>> {
  private static final Logger log = LoggerFactory.getLogger(HostAddresses.class);
  private static final Duration FRESH_FOR = Duration.ofMinutes(1);

  private record Snapshot(Set<InetAddress> addresses, Instant takenAt) {}

  private final Clock clock;
  private volatile Snapshot snapshot;

  public HostAddresses(Clock clock) {
    this.clock = clock;
  }

  @Override
  public Set<InetAddress> get() {
    Snapshot s = snapshot;
    Instant now = clock.instant();
    if (s == null || !now.isBefore(s.takenAt().plus(FRESH_FOR)) || now.isBefore(s.takenAt())) {
      // Two callers may enumerate at once; both results are right, the last one stays.
      s = new Snapshot(enumerate(), now);
      snapshot = s;
    }
    return s.addresses();
  }

  private static Set<InetAddress> enumerate() {
    Set<InetAddress> found = new HashSet<>();
    try {
      for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        found.addAll(Collections.list(nic.getInetAddresses()));
      }
    } catch (SocketException e) {
      // Rare (no permission to list them): the fixed ranges still hold; say so once a minute.
      log.warn("cannot list this host's addresses to refuse them in URLs: {}", e.toString());
    }
    return Set.copyOf(found);
  }
}
