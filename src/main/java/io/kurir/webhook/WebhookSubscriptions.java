package io.kurir.webhook;

import io.kurir.media.SafeFetcher;
import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.store.SecretBox;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A license's webhook subscriptions ({@code /v1/webhooks}): a URL and the event types it wants,
 * delivered from the event log through the durable outbox ({@link Events}), signed in the Standard
 * Webhooks format with the subscription's own secret ({@link StandardWebhooks}), which is told
 * once, on creation.
 *
 * <p>Thread-safe.
 */
public final class WebhookSubscriptions {
  /** The most subscriptions one license may hold: each event is stored once per matching one. */
  public static final int MAX_PER_LICENSE = 20;

  /** The longest URL accepted, as for a device's webhook URLs. */
  public static final int MAX_URL = 2000;

  /** A subscription as its license sees it (never its secret). */
  public record Subscription(long id, String url, List<String> events, Instant createdAt) {}

  /** A new subscription and its secret, which is not shown again. */
  public record Created(Subscription subscription, String secret) {}

  private final SubscriptionStore store;
  private final SecretBox secrets;
  private final IdGenerator ids;
  private final Clock clock;
  private final SafeFetcher targets;

  /**
   * @param targets the guard of caller-given URLs: a URL it refuses (a private address, unless the
   *     operator allows them) is refused here too, as a device's webhook URL is
   */
  public WebhookSubscriptions(Database db, IdGenerator ids, Clock clock, SafeFetcher targets) {
    this.store = new SubscriptionStore(db);
    this.secrets = db.secrets();
    this.ids = ids;
    this.clock = clock;
    this.targets = targets;
  }

  /**
   * Subscribes {@code url} to {@code events} for the license.
   *
   * @throws SubscriptionRefused for a URL Kurir may not call, an unknown or missing event type, or
   *     a license that holds {@link #MAX_PER_LICENSE} already
   */
  public Created create(long licenseId, String url, List<String> events) {
    String target = url == null ? "" : url.strip();
    if (target.isEmpty() || target.length() > MAX_URL) {
      throw new SubscriptionRefused(
          SubscriptionRefused.Reason.URL_NOT_VALID,
          "url is an http or https URL of at most " + MAX_URL + " characters");
    }
    Optional<String> refusal = targets.refusalOf(target);
    if (refusal.isPresent()) {
      throw new SubscriptionRefused(
          SubscriptionRefused.Reason.URL_NOT_VALID,
          "Kurir may not call this URL: " + refusal.get());
    }
    Set<String> wanted = new LinkedHashSet<>();
    for (String e : events == null ? List.<String>of() : events) {
      if (e == null || !Events.TYPES.contains(e.strip())) {
        throw new SubscriptionRefused(
            SubscriptionRefused.Reason.EVENTS_NOT_VALID,
            "unknown event type '" + e + "'; known: " + String.join(", ", sorted()));
      }
      wanted.add(e.strip());
    }
    if (wanted.isEmpty()) {
      throw new SubscriptionRefused(
          SubscriptionRefused.Reason.EVENTS_NOT_VALID,
          "events lists at least one of " + String.join(", ", sorted()));
    }
    if (store.of(licenseId).size() >= MAX_PER_LICENSE) {
      throw new SubscriptionRefused(
          SubscriptionRefused.Reason.TOO_MANY,
          "a license holds at most " + MAX_PER_LICENSE + " webhook subscriptions");
    }
    String secret = StandardWebhooks.newSecret();
    SubscriptionStore.Row row =
        new SubscriptionStore.Row(
            ids.next(),
            licenseId,
            target,
            List.copyOf(wanted),
            secrets.seal(secret),
            clock.instant());
    store.insert(row);
    return new Created(view(row), secret);
  }

  /** The license's subscriptions, oldest first. */
  public List<Subscription> of(long licenseId) {
    return store.of(licenseId).stream().map(WebhookSubscriptions::view).toList();
  }

  /**
   * Removes the subscription; what still waited for it ends as failed.
   *
   * @throws SubscriptionRefused {@code NOT_FOUND} when the license has no such subscription
   */
  public void remove(long licenseId, long id) {
    if (!store.remove(licenseId, id, clock.instant())) {
      throw new SubscriptionRefused(
          SubscriptionRefused.Reason.NOT_FOUND, "no webhook subscription " + id);
    }
  }

  private static List<String> sorted() {
    List<String> types = new ArrayList<>(Events.TYPES);
    types.sort(null);
    return types;
  }

  private static Subscription view(SubscriptionStore.Row row) {
    return new Subscription(row.id(), row.url(), row.events(), row.createdAt());
  }
}
