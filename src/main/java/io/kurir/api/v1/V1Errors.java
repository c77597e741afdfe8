package io.kurir.api.v1;

import io.kurir.api.ApiException;
import io.kurir.api.ErrorCatalogue;
import io.kurir.content.ContentRefused;
import io.kurir.core.KurirException;

/**
 * The one error catalogue of Kurir's own API ({@code /v1}): the answers every family gives ({@link
 * ErrorCatalogue#COMMON}), and a bearer token the tenant core refused: 401 {@code invalid_key} for
 * a key nobody has (or a revoked one; the sentence is fixed, so that it tells nothing about which
 * keys exist), 403 {@code disabled} for a switched-off device, license or partner, 403 {@code
 * license_expired} where the core refuses an expired license; a refused send as every sending
 * family answers it ({@link ErrorCatalogue.Builder#sendRefusals}). Rendered as {@code {"error":
 * token, "message": sentence}}.
 */
final class V1Errors {
  private V1Errors() {}

  static final String NO_KEY =
      "send Authorization: Bearer <key>: a license's API key or a device's Eco key";

  static final ErrorCatalogue CATALOGUE =
      ErrorCatalogue.builder()
          .credentialRefusals("disabled", "invalid_key", NO_KEY)
          // A message object Meta would refuse: 400 with the field's token (text_body_empty).
          .add(ContentRefused.Reason.CONTENT_EMPTY, V1Errors::contentRefused)
          .add(ContentRefused.Reason.CONTENT_NOT_VALID, V1Errors::contentRefused)
          .add(ContentRefused.Reason.CONTENT_TOO_LONG, V1Errors::contentRefused)
          // Refused sends as every sending family answers them (a kind the device's driver
          // cannot carry: 422 naming the driver and the kind).
          .sendRefusals("text.body")
          // Webhook subscriptions (/v1/webhooks).
          .subscriptionRefusals()
          .build();

  private static ApiException contentRefused(KurirException e) {
    return new ApiException(400, ((ContentRefused) e).token(), e.getMessage());
  }
}
