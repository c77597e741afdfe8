package io.kurir.api.v1;

import io.kurir.api.ApiException;
import io.kurir.api.ErrorCatalogue;
import io.kurir.campaign.CampaignRefused;
import io.kurir.content.ContentRefused;
import io.kurir.core.KurirException;
import io.kurir.message.ActionRefused;

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
          // The contact book (/v1/contacts).
          .contactRefusals()
          // Actions on a message or a chat (revoke, edit, reactions, read, typing).
          .add(ActionRefused.Reason.MESSAGE_NOT_FOUND, 404, "message_not_found")
          .add(ActionRefused.Reason.MESSAGE_RECEIVED, 409, "message_received")
          .add(ActionRefused.Reason.MESSAGE_NOT_SENT, 409, "message_not_sent")
          .add(ActionRefused.Reason.MESSAGE_REVOKED, 409, "message_revoked")
          .add(ActionRefused.Reason.MESSAGE_NOT_TEXT, 422, "message_not_text")
          .add(ActionRefused.Reason.CAPABILITY_NOT_SUPPORTED, 422, "capability_not_supported")
          .add(ActionRefused.Reason.NETWORK_REFUSED, 422, "network_refused")
          .add(ActionRefused.Reason.DEVICE_UNAVAILABLE, 503, "device_unavailable")
          // Campaigns (/v1/campaigns).
          .add(CampaignRefused.Reason.FIELD_NOT_VALID, 400, "invalid_campaign")
          .add(CampaignRefused.Reason.DEVICE_NOT_FOUND, 404, "device_not_found")
          .add(CampaignRefused.Reason.STATUS_NOT_VALID, 409, "campaign_status")
          .add(CampaignRefused.Reason.NOT_FOUND, 404, "campaign_not_found")
          .add(CampaignRefused.Reason.TEMPLATE_REQUIRED, 422, "template_required")
          .add(CampaignRefused.Reason.LIST_MISSING, 409, "list_missing")
          .build();

  private static ApiException contentRefused(KurirException e) {
    return new ApiException(400, ((ContentRefused) e).token(), e.getMessage());
  }
}
