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
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * A license's webhook subscriptions ({@code /v1/webhooks}): a URL, the event types it wants and its
 * {@link Format}, delivered from the event log through the durable outbox ({@link Events}), signed
 * with the subscription's own secret, which is told once, on creation: in the Standard Webhooks
 * format ({@link StandardWebhooks}), or, for {@link Format#META}, as the Cloud API's own webhooks
 * ({@link MetaWebhooks}).
 *
 * <p>Thread-safe.
 */
public final class WebhookSubscriptions {
  /** The most subscriptions one license may hold: each event is stored once per matching one. */
  public static final int MAX_PER_LICENSE = 20;

  /** The longest URL accepted, as for a device's webhook URLs. */
  public static final int MAX_URL = 2000;

  /** What a subscription's deliveries look like. */
  public enum Format {
    /** Kurir's event JSON, signed in the Standard Webhooks format ({@code whsec_} secret). */
    STANDARD,
    /**
     * The Cloud API's webhook payloads ({@code whatsapp_business_account}), signed {@code
     * X-Hub-Signature-256} with the secret as Meta signs with the app secret; only the events Meta
     * has ({@link MetaWebhooks#EVENTS}).
     */
    META;

    /** The name in the API, the console and the database. */
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** The format named {@code name} (as {@link #wireName}), if any. */
    public static Optional<Format> ofWireName(String name) {
      for (Format f : values()) {
        if (f.wireName().equals(name)) {
          return Optional.of(f);
        }
      }
      return Optional.empty();
    }
  }

  /** A subscription as its license sees it (never its secret). */
  public record Subscription(
      long id, String url, List<String> events, Instant createdAt, Format format) {}

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
   * The format named {@code name} ({@code standard}, {@code meta}); {@code standard} when null.
   *
   * @throws SubscriptionRefused {@code FORMAT_NOT_VALID} for any other name
   */
  public static Format format(String name) {
    if (name == null) {
      return Format.STANDARD;
    }
    return Format.ofWireName(name.strip())
        .orElseThrow(
            () ->
                new SubscriptionRefused(
                    SubscriptionRefused.Reason.FORMAT_NOT_VALID,
                    "format is standard (Kurir's events, Standard Webhooks signatures) or meta"
                        + " (the Cloud API's webhooks, X-Hub-Signature-256)"));
  }

  /** {@link #create(long, String, List, Format)} in the standard format. */
  public Created create(long licenseId, String url, List<String> events) {
    return create(licenseId, url, events, Format.STANDARD);
  }

  /**
   * Subscribes {@code url} to {@code events} for the license, delivered in {@code format}.
   *
   * @throws SubscriptionRefused for a URL Kurir may not call, an unknown or missing event type, an
   *     event type the format has not ({@code device.status} in Meta's), or a license that holds
   *     {@link #MAX_PER_LICENSE} already
   */
  public Created create(long licenseId, String url, List<String> events, Format format) {
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
    if (format == Format.META) {
      for (String e : wanted) {
        if (!MetaWebhooks.EVENTS.contains(e)) {
          throw new SubscriptionRefused(
              SubscriptionRefused.Reason.EVENT_NOT_IN_FORMAT,
              "Meta's webhooks have no "
                  + e
                  + " event; a meta subscription takes "
                  + String.join(", ", new TreeSet<>(MetaWebhooks.EVENTS)));
        }
      }
    }
    if (store.of(licenseId).size() >= MAX_PER_LICENSE) {
      throw new SubscriptionRefused(
          SubscriptionRefused.Reason.TOO_MANY,
          "a license holds at most " + MAX_PER_LICENSE + " webhook subscriptions");
    }
    String secret = format == Format.META ? MetaWebhooks.newSecret() : StandardWebhooks.newSecret();
    SubscriptionStore.Row row =
        new SubscriptionStore.Row(
            ids.next(),
            licenseId,
            target,
            List.copyOf(wanted),
            secrets.seal(secret),
            clock.instant(),
            format);
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

  /**
   * The latest deliveries of the license's subscription {@code id} (removed ones included), newest
   * first, at most {@code limit}: what the outbox keeps of them (delivered ones for a week).
   */
  public List<WebhookDeliveries.Delivery> recentDeliveries(long licenseId, long id, int limit) {
    return store.recentDeliveries(licenseId, id, limit);
  }

  private static List<String> sorted() {
    List<String> types = new ArrayList<>(Events.TYPES);
    types.sort(null);
    return types;
  }

  private static Subscription view(SubscriptionStore.Row row) {
    return new Subscription(row.id(), row.url(), row.events(), row.createdAt(), row.format());
  }
}
