package io.kurir.driver;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * How fast one device sends, a policy that fits very different networks:
 *
 * <ul>
 *   <li>a minimum gap between two sends plus up to {@code jitter} of random extra time, so that a
 *       linked phone never sends in a machine-regular rhythm (the anti-ban delay a WhatsApp Web
 *       engine needs); or, written as a rate, a steady pace with no jitter (what the Cloud API
 *       allows);
 *   <li>{@code inFlight} sends under way at once: a network answering over HTTPS takes ~200 ms a
 *       call, so one at a time gives about 5 a second where the Cloud API takes 80. Order is kept
 *       per recipient: a recipient never has two sends under way;
 *   <li>a gap between two sends to the same recipient (a network's "pair rate limit");
 *   <li>a daily cap: past it, the device's messages wait for the next day in the operator's zone.
 * </ul>
 *
 * <p>Measured in real time: it is a rate limit on the network, not a business deadline. Each driver
 * has its own default ({@code drivers.<name>.pacing.*}, declared with {@link #settings}); a device
 * may override any part with the same keys in its configuration.
 *
 * @param minGap the least time between the starts of two sends
 * @param jitter up to this much random time added to each gap
 * @param inFlight sends under way at once, at least 1
 * @param recipientGap the least time between two sends to one recipient
 * @param dailyCap sends a day, 0 for no cap
 */
public record Pacing(
    Duration minGap, Duration jitter, int inFlight, Duration recipientGap, int dailyCap) {

  public static final Pacing OFF = new Pacing(Duration.ZERO, Duration.ZERO);

  public static final String MIN_GAP_KEY = "pacing.min-gap";
  public static final String JITTER_KEY = "pacing.jitter";

  /** Messages a second; when set, it gives the minimum gap ({@code 1s / rate}) and no jitter. */
  public static final String RATE_KEY = "pacing.rate";

  public static final String IN_FLIGHT_KEY = "pacing.in-flight";
  public static final String RECIPIENT_GAP_KEY = "pacing.recipient-gap";
  public static final String DAILY_CAP_KEY = "pacing.daily-cap";

  /**
   * A device's own figures of the campaigns' safe-sending policy ({@code
   * campaigns.safe-sending.*}), over the gateway's: a number known to be old needs no warm-up ramp,
   * a Cloud API number may go faster. Read by the campaign runner; checked here with the rest.
   */
  public static final String CAMPAIGN_WARM_UP_START_KEY = "pacing.campaign-warm-up-start";

  public static final String CAMPAIGN_DAILY_CAP_KEY = "pacing.campaign-daily-cap";
  public static final String CAMPAIGN_GAP_MIN_KEY = "pacing.campaign-gap-min";
  public static final String CAMPAIGN_GAP_MAX_KEY = "pacing.campaign-gap-max";

  /** The most sends one device may have under way at once. */
  public static final int MAX_IN_FLIGHT = 64;

  /**
   * The longest a sync message (a caller waits, usually for an OTP) waits for the pacing gap after
   * the previous send: sync sends are what people trigger one at a time, and a caller behind a
   * campaign's gap would otherwise time out on a device that is online.
   */
  public static final Duration SYNC_GAP_CAP = Duration.ofMillis(500);

  public Pacing {
    if (minGap.isNegative() || jitter.isNegative() || recipientGap.isNegative()) {
      throw new IllegalArgumentException("pacing gaps cannot be negative");
    }
    if (inFlight < 1 || inFlight > MAX_IN_FLIGHT) {
      throw new IllegalArgumentException("pacing.in-flight must be 1 to " + MAX_IN_FLIGHT);
    }
    if (dailyCap < 0) {
      throw new IllegalArgumentException("pacing.daily-cap cannot be negative");
    }
  }

  /** A gap with jitter, one send at a time, no other limit. */
  public Pacing(Duration minGap, Duration jitter) {
    this(minGap, jitter, 1, Duration.ZERO, 0);
  }

  /** Sends at most {@code perSecond} messages a second, evenly spaced. */
  public static Pacing rate(double perSecond) {
    return OFF.withMinGap(gapOfRate(perSecond));
  }

  private static Duration gapOfRate(double perSecond) {
    if (!(perSecond > 0)) {
      throw new IllegalArgumentException("a rate must be positive");
    }
    return Duration.ofNanos((long) (1_000_000_000L / perSecond));
  }

  public Pacing withMinGap(Duration gap) {
    return new Pacing(gap, jitter, inFlight, recipientGap, dailyCap);
  }

  public Pacing withInFlight(int sends) {
    return new Pacing(minGap, jitter, sends, recipientGap, dailyCap);
  }

  public Pacing withRecipientGap(Duration gap) {
    return new Pacing(minGap, jitter, inFlight, gap, dailyCap);
  }

  public Pacing withDailyCap(int sends) {
    return new Pacing(minGap, jitter, inFlight, recipientGap, sends);
  }

  /** The gap before a sync message: the pacing gap, but no longer than {@link #SYNC_GAP_CAP}. */
  public long syncGapNanos() {
    return Math.min(minGap.toNanos(), SYNC_GAP_CAP.toNanos());
  }

  /** The average gap between two sends. */
  public long meanGapNanos() {
    return minGap.toNanos() + jitter.toNanos() / 2;
  }

  /** The gap after a send: the minimum plus a random part of the jitter. */
  public long nextGapNanos() {
    long jitterNanos = jitter.toNanos();
    long extra = jitterNanos > 0 ? ThreadLocalRandom.current().nextLong(jitterNanos + 1) : 0;
    return minGap.toNanos() + extra;
  }

  /**
   * The settings of a driver's pacing, {@code drivers.<name>.pacing.*}, with the defaults of {@code
   * ./kurir serve} and {@code ./kurir demo}; a driver lists them among its own settings.
   */
  public static List<DriverSetting> settings(Pacing serve, Pacing demo) {
    List<DriverSetting> all = new ArrayList<>();
    all.add(setting(MIN_GAP_KEY, DriverSetting.Kind.DURATION, serve, demo, p -> millis(p.minGap)));
    all.add(setting(JITTER_KEY, DriverSetting.Kind.DURATION, serve, demo, p -> millis(p.jitter)));
    all.add(setting(RATE_KEY, DriverSetting.Kind.COUNT, serve, demo, p -> "0"));
    all.add(setting(IN_FLIGHT_KEY, DriverSetting.Kind.COUNT, serve, demo, p -> "" + p.inFlight));
    all.add(
        setting(
            RECIPIENT_GAP_KEY,
            DriverSetting.Kind.DURATION,
            serve,
            demo,
            p -> millis(p.recipientGap)));
    all.add(setting(DAILY_CAP_KEY, DriverSetting.Kind.COUNT, serve, demo, p -> "" + p.dailyCap));
    return all;
  }

  /**
   * The settings of a driver paced by a rate ({@code perSecond} messages a second, no jitter) with
   * {@code inFlight} sends under way at once, in serve and demo alike: a network reached over
   * HTTPS.
   */
  public static List<DriverSetting> rateSettings(int perSecond, int inFlight) {
    Pacing p = OFF.withInFlight(inFlight);
    List<DriverSetting> all = new ArrayList<>(settings(p, p));
    String rate = Integer.toString(perSecond);
    all.replaceAll(
        s -> s.key().equals(RATE_KEY) ? DriverSetting.of(RATE_KEY, s.kind(), rate, rate) : s);
    return all;
  }

  private static DriverSetting setting(
      String key, DriverSetting.Kind kind, Pacing serve, Pacing demo, Function<Pacing, String> v) {
    return DriverSetting.of(key, kind, v.apply(serve), v.apply(demo));
  }

  private static String millis(Duration d) {
    return d.toMillis() + "ms";
  }

  /**
   * {@code base} with what {@code values} (a driver's settings section, or a device's
   * configuration) sets of it; values that do not read are left to the checks that refuse them.
   */
  public static Pacing of(Map<String, String> values, Pacing base) {
    Function<String, Optional<String>> get =
        key -> Optional.ofNullable(values.get(key)).map(String::strip).filter(v -> !v.isEmpty());
    Pacing p = base;
    Optional<Integer> rate = get.apply(RATE_KEY).flatMap(Pacing::count).filter(n -> n > 0);
    if (rate.isPresent()) {
      p = new Pacing(gapOfRate(rate.get()), Duration.ZERO, p.inFlight, p.recipientGap, p.dailyCap);
    } else {
      p = p.withMinGap(get.apply(MIN_GAP_KEY).flatMap(Values::duration).orElse(p.minGap));
      p =
          new Pacing(
              p.minGap,
              get.apply(JITTER_KEY).flatMap(Values::duration).orElse(p.jitter),
              p.inFlight,
              p.recipientGap,
              p.dailyCap);
    }
    p =
        p.withInFlight(
            get.apply(IN_FLIGHT_KEY)
                .flatMap(Pacing::count)
                .filter(n -> n >= 1 && n <= MAX_IN_FLIGHT)
                .orElse(p.inFlight));
    p =
        p.withRecipientGap(
            get.apply(RECIPIENT_GAP_KEY).flatMap(Values::duration).orElse(p.recipientGap));
    return p.withDailyCap(get.apply(DAILY_CAP_KEY).flatMap(Pacing::count).orElse(p.dailyCap));
  }

  /**
   * What is wrong with the pacing keys among {@code values}, if anything: each message names the
   * key and the value.
   */
  public static List<String> problems(Map<String, String> values) {
    List<String> problems = new ArrayList<>();
    for (String key :
        List.of(
            MIN_GAP_KEY,
            JITTER_KEY,
            RECIPIENT_GAP_KEY,
            CAMPAIGN_GAP_MIN_KEY,
            CAMPAIGN_GAP_MAX_KEY)) {
      String v = values.get(key);
      if (v != null && !v.isBlank() && Values.duration(v).isEmpty()) {
        problems.add("'" + key + "' = '" + v + "' is not a duration such as 500ms or 2s");
      }
    }
    // A campaign's gap is drawn between the two: a least one above the most has no gap to draw.
    Optional<Duration> gapMin =
        Optional.ofNullable(values.get(CAMPAIGN_GAP_MIN_KEY)).flatMap(Values::duration);
    Optional<Duration> gapMax =
        Optional.ofNullable(values.get(CAMPAIGN_GAP_MAX_KEY)).flatMap(Values::duration);
    if (gapMin.isPresent() && gapMax.isPresent() && gapMin.get().compareTo(gapMax.get()) > 0) {
      problems.add(
          "'"
              + CAMPAIGN_GAP_MIN_KEY
              + "' = '"
              + values.get(CAMPAIGN_GAP_MIN_KEY)
              + "' is longer than '"
              + CAMPAIGN_GAP_MAX_KEY
              + "' = '"
              + values.get(CAMPAIGN_GAP_MAX_KEY)
              + "'");
    }
    checkCount(values, RATE_KEY, 0, 1_000, problems);
    checkCount(values, IN_FLIGHT_KEY, 1, MAX_IN_FLIGHT, problems);
    checkCount(values, DAILY_CAP_KEY, 0, 10_000_000, problems);
    checkCount(values, CAMPAIGN_WARM_UP_START_KEY, 0, 1_000_000, problems);
    checkCount(values, CAMPAIGN_DAILY_CAP_KEY, 0, 10_000_000, problems);
    return problems;
  }

  /**
   * The whole numbers among {@code values} that are outside their bounds, each as {@code key: n is
   * outside min..max}; for settings, whose loader reads every value's form already.
   */
  public static List<String> outOfRange(Map<String, String> values) {
    List<String> problems = new ArrayList<>();
    for (var bound :
        List.of(
            Map.entry(RATE_KEY, new int[] {0, 1_000}),
            Map.entry(IN_FLIGHT_KEY, new int[] {1, MAX_IN_FLIGHT}),
            Map.entry(DAILY_CAP_KEY, new int[] {0, 10_000_000}))) {
      String v = values.get(bound.getKey());
      Optional<Integer> n = v == null ? Optional.empty() : count(v);
      int min = bound.getValue()[0];
      int max = bound.getValue()[1];
      if (n.isPresent() && (n.get() < min || n.get() > max)) {
        problems.add(bound.getKey() + ": " + n.get() + " is outside " + min + ".." + max);
      }
    }
    return problems;
  }

  private static void checkCount(
      Map<String, String> values, String key, int min, int max, List<String> problems) {
    String v = values.get(key);
    if (v == null || v.isBlank()) {
      return;
    }
    Optional<Integer> n = count(v);
    if (n.isEmpty() || n.get() < min || n.get() > max) {
      problems.add("'" + key + "' = '" + v + "' is not a whole number from " + min + " to " + max);
    }
  }

  private static Optional<Integer> count(String raw) {
    String s = raw.strip();
    if (s.isEmpty() || s.length() > 9 || !s.chars().allMatch(Character::isDigit)) {
      return Optional.empty();
    }
    return Optional.of(Integer.parseInt(s));
  }
}
