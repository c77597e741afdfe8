package io.kurir.limit;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import io.kurir.tenant.AddressRange;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The request limits of this node: a token bucket (Bucket4j) per caller key and one per client
 * address. Buckets live in bounded caches (Caffeine) that forget a caller once its bucket would be
 * full again, so memory stays bounded however many callers come and go; past {@link #MAX_CALLERS}
 * the least recently seen are forgotten first (they start again with a full bucket).
 *
 * <p>Limits are counted per node: behind a load balancer over several nodes a caller may make up to
 * that many times the limit.
 *
 * <p>Thread-safe.
 */
public final class RequestLimits {
  /** Most buckets kept per kind (keys, addresses): a few hundred bytes each. */
  static final int MAX_CALLERS = 100_000;

  /** An idle bucket is kept at least this long, so a steady slow caller keeps its own. */
  private static final Duration MIN_KEEP = Duration.ofMinutes(1);

  private final RateLimit perKey;
  private final RateLimit perAddress;
  private final List<String> exempt;
  private final TimeMeter time;
  private final Cache<String, Bucket> keys;
  private final Cache<String, Bucket> addresses;
  private final java.util.concurrent.ConcurrentHashMap<String, Boolean> exemptAddresses =
      new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * @param perKey the limit of each caller key (a device, a push license, a partner)
   * @param perAddress the limit of each client address
   * @param exempt addresses and CIDR ranges whose requests are never limited (loopback: tools on
   *     the gateway's own machine, the benchmarks)
   * @param clock the time buckets refill by
   */
  public RequestLimits(RateLimit perKey, RateLimit perAddress, List<String> exempt, Clock clock) {
    this.perKey = perKey;
    this.perAddress = perAddress;
    this.exempt = List.copyOf(exempt);
    this.time = new ClockTime(clock);
    this.keys = cacheFor(perKey);
    this.addresses = cacheFor(perAddress);
  }

  /** Whether no request is ever limited: both limits are off. */
  public boolean isOff() {
    return !perKey.isOn() && !perAddress.isOn();
  }

  /** Whether requests from {@code address} (an IP literal) are never limited. */
  public boolean isExempt(String address) {
    if (exempt.isEmpty()) {
      return false;
    }
    // Asked on every request, and reading an address is two regular expressions and a parse: the
    // answer is kept per address, forgotten all at once past a bound (the ranges never change in
    // one instance; a new configuration makes a new one).
    Boolean known = exemptAddresses.get(address);
    if (known != null) {
      return known;
    }
    if (exemptAddresses.size() >= MAX_CALLERS) {
      exemptAddresses.clear();
    }
    boolean answer = exemptNow(address);
    exemptAddresses.put(address, answer);
    return answer;
  }

  private boolean exemptNow(String address) {
    // An IPv6 connection's address may come bracketed, as in a URL: [::1].
    String bare =
        address.startsWith("[") && address.endsWith("]")
            ? address.substring(1, address.length() - 1)
            : address;
    Optional<InetAddress> literal = AddressRange.literal(bare);
    return literal.isPresent()
        && exempt.stream().anyMatch(range -> AddressRange.contains(range, literal.get()));
  }

  /**
   * Counts one request from {@code address}.
   *
   * @throws RateLimited when the address is over its limit
   */
  public void admitAddress(String address) {
    admit(addresses, perAddress, address, "client address");
  }

  /**
   * Counts one request by the caller {@code key} ({@code device 12}, {@code partner 3}, …).
   *
   * @throws RateLimited when the key is over its limit
   */
  public void admitKey(String key) {
    admit(keys, perKey, key, "key");
  }

  private void admit(Cache<String, Bucket> buckets, RateLimit limit, String caller, String kind) {
    if (!limit.isOn()) {
      return;
    }
    Bucket bucket = buckets.get(caller, c -> newBucket(limit));
    ConsumptionProbe probe = bucket.tryConsumeAndReturnRemaining(1);
    if (!probe.isConsumed()) {
      throw new RateLimited(
          "this " + kind + " is over its limit of " + limit,
          Duration.ofNanos(probe.getNanosToWaitForRefill()));
    }
  }

  private Bucket newBucket(RateLimit limit) {
    return Bucket.builder()
        .addLimit(l -> l.capacity(limit.burst()).refillGreedy(limit.count(), limit.period()))
        .withCustomTimePrecision(time)
        .build();
  }

  private static Cache<String, Bucket> cacheFor(RateLimit limit) {
    Duration keep = limit.refillTime().compareTo(MIN_KEEP) > 0 ? limit.refillTime() : MIN_KEEP;
    return Caffeine.newBuilder().maximumSize(MAX_CALLERS).expireAfterAccess(keep).build();
  }

  /** The injected clock as Bucket4j's time source, so tests move time instead of sleeping. */
  private record ClockTime(Clock clock) implements TimeMeter {
    @Override
    public long currentTimeNanos() {
      java.time.Instant now = clock.instant();
      return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    @Override
    public boolean isWallClockBased() {
      return true;
    }
  }
}
