package io.kurir.bot;

import io.kurir.message.Messages;
import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Keyword auto-replies: each license's rules, and the rule an incoming text matches. Matchers are
 * built once per license and kept; a change made here replaces it at once, one made by another node
 * sharing the database shows within {@link #REFRESH}.
 *
 * <p>Thread-safe.
 */
public final class Bots {
  /** Rules per license: enough for any keyword menu, and a bound on one license's memory. */
  public static final int MAX_RULES = 10_000;

  /** Longest keyword, in characters. */
  public static final int MAX_KEYWORD = 1_000;

  /**
   * The characters of all of a license's keywords together: bounds the memory of its matcher (a
   * node per character) whatever mix of rule counts and lengths a partner chooses.
   */
  public static final long MAX_KEYWORD_CHARACTERS = 100_000;

  /** How often a node looks whether another node changed a license's rules. */
  static final Duration REFRESH = Duration.ofSeconds(5);

  private final BotStore store;
  private final IdGenerator ids;
  private final Clock clock;
  private final Map<Long, Cached> matchers = new ConcurrentHashMap<>();

  /** Per license, how often its rules changed on this node: a matcher built before is stale. */
  private final Map<Long, AtomicLong> changes = new ConcurrentHashMap<>();

  private record Cached(BotMatcher matcher, long change, String signature, long checkedNanos) {}

  public Bots(Database db, IdGenerator ids, Clock clock) {
    this.store = new BotStore(db);
    this.ids = ids;
    this.clock = clock;
  }

  /** Why a rule was not added. */
  public static final class RuleRefused extends io.kurir.core.KurirException {
    /** Its one reason: the message says which rule of {@link #add} the rule broke. */
    public enum Reason implements io.kurir.core.KurirException.Reason {
      RULE_REFUSED
    }

    public RuleRefused(String message) {
      super(message, false);
    }

    @Override
    public Reason reason() {
      return Reason.RULE_REFUSED;
    }
  }

  /** Adds a rule to a license. */
  public BotRule add(long licenseId, String keyword, String response, MatchType type) {
    String key = BotMatcher.normalize(keyword);
    if (key.isEmpty()) {
      throw new RuleRefused("the keyword is empty");
    }
    if (key.length() > MAX_KEYWORD) {
      throw new RuleRefused("the keyword is longer than " + MAX_KEYWORD + " characters");
    }
    if (response.isBlank()) {
      throw new RuleRefused("the response is empty");
    }
    if (response.length() > Messages.MAX_TEXT_LENGTH) {
      throw new RuleRefused("the response is longer than " + Messages.MAX_TEXT_LENGTH);
    }
    // The same keyword (as matched) and type again changes that rule's reply: a second rule
    // would never answer, since the older one wins.
    Optional<BotRule> same =
        store.rules(licenseId).stream()
            .filter(r -> r.matchKey().equals(key) && r.matchType() == type)
            .findFirst();
    if (same.isPresent()) {
      store.updateResponse(same.get().id(), response, clock.millis());
      changed(licenseId);
      return new BotRule(
          same.get().id(),
          licenseId,
          same.get().keyword(),
          key,
          type,
          response,
          same.get().createdAt());
    }
    if (store.count(licenseId) >= MAX_RULES) {
      throw new RuleRefused("a license has at most " + MAX_RULES + " rules");
    }
    if (store.keywordCharacters(licenseId) + key.length() > MAX_KEYWORD_CHARACTERS) {
      throw new RuleRefused(
          "a license's keywords have at most " + MAX_KEYWORD_CHARACTERS + " characters in all");
    }
    BotRule rule =
        new BotRule(ids.next(), licenseId, keyword.strip(), key, type, response, clock.instant());
    store.insert(rule);
    changed(licenseId);
    return rule;
  }

  /** Whether {@link #add} would change an existing rule rather than add one. */
  public boolean exists(long licenseId, String keyword, MatchType type) {
    String key = BotMatcher.normalize(keyword);
    return store.rules(licenseId).stream()
        .anyMatch(r -> r.matchKey().equals(key) && r.matchType() == type);
  }

  public List<BotRule> rules(long licenseId) {
    return store.rules(licenseId);
  }

  /** Deletes a rule of the license; false when it has no such rule. */
  public boolean delete(long licenseId, long ruleId) {
    boolean deleted = store.delete(licenseId, ruleId);
    changed(licenseId);
    return deleted;
  }

  /**
   * The rule of the license that {@code text} matches, if any. The license's matcher is built once
   * and kept; it is rebuilt when its rules changed on this node, or, looked at every {@link
   * #REFRESH}, on another.
   */
  public Optional<BotRule> match(long licenseId, String text) {
    return matcher(licenseId).match(text);
  }

  private BotMatcher matcher(long licenseId) {
    long change = changesOf(licenseId).get();
    long now = System.nanoTime();
    Cached cached = matchers.get(licenseId);
    if (cached != null && cached.change() == change) {
      if (now - cached.checkedNanos() < REFRESH.toNanos()) {
        return cached.matcher();
      }
      if (store.signature(licenseId).equals(cached.signature())) {
        matchers.replace(
            licenseId, cached, new Cached(cached.matcher(), change, cached.signature(), now));
        return cached.matcher();
      }
    }
    // The signature before the rules: a change in between makes the next look rebuild again.
    String signature = store.signature(licenseId);
    BotMatcher built = new BotMatcher(store.rules(licenseId));
    Cached fresh = new Cached(built, change, signature, now);
    // Kept only if no change happened on this node while it was built (else it may miss it).
    matchers.compute(licenseId, (id, old) -> changesOf(licenseId).get() == change ? fresh : old);
    return built;
  }

  private AtomicLong changesOf(long licenseId) {
    return changes.computeIfAbsent(licenseId, id -> new AtomicLong());
  }

  private void changed(long licenseId) {
    changesOf(licenseId).incrementAndGet();
    matchers.remove(licenseId);
  }
}
