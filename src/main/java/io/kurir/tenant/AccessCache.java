package io.kurir.tenant;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Credentials seen recently, with what they lead to (a device's Eco key: the device, license and
 * partner; a license's API key: the key, license and partner), so that a request costs no database
 * reads to authenticate. Every change made through {@link Tenants} clears it; a change made by
 * another process (another node, {@code ./kurir admin}) shows within {@code ttl}.
 *
 * <p>Thread-safe.
 */
final class AccessCache<T> {
  /** The rows that decide whether a device's credential may be used. */
  record Access(Device device, License license, Partner partner) {}

  private record Entry<T>(T access, long loadedNanos) {}

  private static final int MAX_ENTRIES = 100_000;

  private final Map<String, Entry<T>> entries = new ConcurrentHashMap<>();
  private final long ttlNanos;
  private final AtomicLong generation = new AtomicLong();

  AccessCache(Duration ttl) {
    this.ttlNanos = ttl.toNanos();
  }

  /** The cached access for {@code credential}, loading it when absent or stale. */
  T get(String credential, Function<String, T> load) {
    Entry<T> e = entries.get(credential);
    long now = System.nanoTime();
    if (e != null && now - e.loadedNanos() < ttlNanos) {
      return e.access();
    }
    long generationBefore = generation.get();
    T fresh = load.apply(credential); // throws for unknown credentials: those stay uncached
    if (entries.size() >= MAX_ENTRIES) {
      entries.clear();
    }
    entries.put(credential, new Entry<>(fresh, now));
    if (generation.get() != generationBefore) {
      // A change landed while this was loading: what was read may predate it.
      entries.remove(credential);
    }
    return fresh;
  }

  void clear() {
    generation.incrementAndGet();
    entries.clear();
  }
}
