package io.kurir.api;

import io.kurir.contactbook.ContactRefused;
import io.kurir.core.KurirException;
import io.kurir.limit.RateLimited;
import io.kurir.message.IdempotencyKeyReused;
import io.kurir.message.SendRefused;
import io.kurir.store.SearchTooLong;
import io.kurir.tenant.TenantException;
import io.kurir.webhook.SubscriptionRefused;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * One API family's answers to the core's refusals: per {@link KurirException.Reason}, the HTTP
 * status and the family's token or result string. {@link HttpApi} renders a refusal thrown by any
 * handler of the family through it, in the family's {@link ErrorStyle}, so handlers call the core
 * and never translate its refusals. A reason a catalogue does not list is a fault (500).
 *
 * <p>Every catalogue starts from {@link #COMMON}, the answers every family gives alike.
 *
 * <p>Immutable and thread-safe.
 */
public final class ErrorCatalogue {

  /**
   * What every family answers alike: 429 {@code rate_limited} (with {@code Retry-After}), 422
   * {@code idempotency_key_reused}, 400 {@code search_too_long}.
   */
  public static final ErrorCatalogue COMMON =
      new Builder(Map.of())
          .add(RateLimited.Reason.RATE_LIMITED, 429, "rate_limited")
          .add(IdempotencyKeyReused.Reason.KEY_REUSED, 422, "idempotency_key_reused")
          .add(SearchTooLong.Reason.SEARCH_TOO_LONG, 400, "search_too_long")
          .build();

  private final Map<KurirException.Reason, Function<KurirException, ApiException>> entries;

  private ErrorCatalogue(Map<KurirException.Reason, Function<KurirException, ApiException>> e) {
    this.entries = Map.copyOf(e);
  }

  /** A catalogue of {@link #COMMON}'s entries and those the builder adds (or replaces). */
  public static Builder builder() {
    return new Builder(COMMON.entries);
  }

  /**
   * A catalogue of only what the builder adds: for a part of a family that handles some refusals
   * itself (the console's forms show them on the form) and leaves the rest to the family's.
   */
  public static Builder builderWithoutCommon() {
    return new Builder(Map.of());
  }

  /** The family's answer to {@code refusal}; empty when the catalogue does not list its reason. */
  public Optional<ApiException> answer(KurirException refusal) {
    return Optional.ofNullable(entries.get(refusal.reason())).map(a -> a.apply(refusal));
  }

  /** Builds a catalogue; the last entry added for a reason wins. */
  public static final class Builder {
    private final Map<KurirException.Reason, Function<KurirException, ApiException>> entries;

    private Builder(Map<KurirException.Reason, Function<KurirException, ApiException>> start) {
      this.entries = new HashMap<>(start);
    }

    /**
     * {@code reasons} answer {@code status} {@code token}, with the refusal's own sentence and its
     * {@code Retry-After}, if it says one.
     */
    public Builder add(KurirException.Reason reason, int status, String token) {
      return add(
          reason, e -> new ApiException(status, token, e.getMessage(), e.retryAfterSeconds()));
    }

    /** Each of {@code reasons} answers {@code status} {@code token}. */
    public Builder addAll(int status, String token, KurirException.Reason... reasons) {
      for (KurirException.Reason reason : reasons) {
        add(reason, status, token);
      }
      return this;
    }

    /**
     * {@code reason} answers {@code status} {@code token} with a fixed sentence, for a refusal
     * whose own sentence must not reach the caller (it would tell which credentials exist).
     */
    public Builder add(KurirException.Reason reason, int status, String token, String detail) {
      return add(reason, e -> new ApiException(status, token, detail));
    }

    /** {@code reason} answers what {@code answer} makes of the refusal. */
    public Builder add(
        KurirException.Reason reason, Function<KurirException, ApiException> answer) {
      entries.put(reason, answer);
      return this;
    }

    /**
     * Webhook subscriptions' refusals as Kurir API v1 answers them (the console shows the same
     * tokens): 400 {@code invalid_url}, {@code invalid_events}, {@code invalid_format}, 422 {@code
     * event_not_in_format}, 409 {@code too_many_webhooks}, 404 {@code webhook_not_found}.
     */
    public Builder subscriptionRefusals() {
      return add(SubscriptionRefused.Reason.URL_NOT_VALID, 400, "invalid_url")
          .add(SubscriptionRefused.Reason.EVENTS_NOT_VALID, 400, "invalid_events")
          .add(SubscriptionRefused.Reason.FORMAT_NOT_VALID, 400, "invalid_format")
          .add(SubscriptionRefused.Reason.EVENT_NOT_IN_FORMAT, 422, "event_not_in_format")
          .add(SubscriptionRefused.Reason.TOO_MANY, 409, "too_many_webhooks")
          .add(SubscriptionRefused.Reason.NOT_FOUND, 404, "webhook_not_found");
    }

    /**
     * The contact book's refusals, in the tokens of Kurir API v1 and its console pages: 400 {@code
     * invalid_phone}, {@code invalid_contact}, {@code invalid_csv}, 413 {@code csv_too_large}, 404
     * {@code contact_not_found}.
     */
    public Builder contactRefusals() {
      return add(ContactRefused.Reason.PHONE_NOT_VALID, 400, "invalid_phone")
          .add(ContactRefused.Reason.FIELD_NOT_VALID, 400, "invalid_contact")
          .add(ContactRefused.Reason.CSV_NOT_VALID, 400, "invalid_csv")
          .add(ContactRefused.Reason.CSV_TOO_LARGE, 413, "csv_too_large")
          .add(ContactRefused.Reason.NOT_FOUND, 404, "contact_not_found");
    }

    /**
     * The core's send refusals as every sending family answers them: 400 {@code
     * <textField>_too_long} (the family's name of the text), 400 {@code phone_no_too_many}, 503
     * {@code stopping}, {@code busy} or {@code driver_not_loaded}, 429 {@code device_busy} (with
     * {@code Retry-After}), 400 {@code media_type_not_supported}.
     */
    public Builder sendRefusals(String textField) {
      return add(SendRefused.Reason.TEXT_TOO_LONG, 400, textField + "_too_long")
          .add(SendRefused.Reason.TOO_MANY_RECIPIENTS, 400, "phone_no_too_many")
          .add(SendRefused.Reason.STOPPING, 503, "stopping")
          .add(SendRefused.Reason.BUSY, 503, "busy")
          .add(SendRefused.Reason.DRIVER_NOT_LOADED, 503, "driver_not_loaded")
          .add(SendRefused.Reason.DEVICE_BUSY, 429, "device_busy")
          .add(SendRefused.Reason.MEDIA_TYPE_NOT_SUPPORTED, 400, "media_type_not_supported")
          .add(SendRefused.Reason.KIND_NOT_SUPPORTED, 422, "kind_not_supported")
          .add(SendRefused.Reason.CAPABILITY_NOT_SUPPORTED, 422, "capability_not_supported");
    }

    /**
     * A credential the tenant core refused, as the families that name a device by a key answer it:
     * 403 {@code license_expired}, 403 {@code disabledToken}, else 401 {@code unknownToken} with
     * {@code unknownDetail} (the core's sentence could tell which keys exist).
     */
    public Builder credentialRefusals(
        String disabledToken, String unknownToken, String unknownDetail) {
      licenseExpired();
      add(TenantException.Reason.DISABLED, 403, disabledToken);
      for (TenantException.Reason r :
          List.of(
              TenantException.Reason.NOT_FOUND,
              TenantException.Reason.INVALID,
              TenantException.Reason.CONFLICT)) {
        add(r, 401, unknownToken, unknownDetail);
      }
      return this;
    }

    /** A license that expired (a tenant refusal {@code EXPIRED}): 403 {@code license_expired}. */
    public Builder licenseExpired() {
      return add(TenantException.Reason.EXPIRED, 403, "license_expired");
    }

    /** Every entry of {@code other}, replacing this builder's for the same reasons. */
    public Builder addAll(ErrorCatalogue other) {
      entries.putAll(other.entries);
      return this;
    }

    public ErrorCatalogue build() {
      return new ErrorCatalogue(entries);
    }
  }
}
