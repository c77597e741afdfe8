package io.kurir.campaign;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * One recipient of a campaign, as its report shows it.
 *
 * @param campaignId the campaign
 * @param phone the contact's number in E.164
 * @param name the contact's name when the campaign took it, if it had one
 * @param variables the contact's values when the campaign took it, by variable name
 * @param variant the message picked for it (0: the campaign's message, n: its n-th variant)
 * @param state {@code waiting}, {@code handed}, {@code opted_out}, {@code cancelled}, {@code
 *     failed}
 * @param deviceId the device its message went from, once handed
 * @param messageId its message, once handed
 * @param reason why it failed or was skipped, if it was: its own, or its message's failure (such as
 *     the network's refusal of a template)
 * @param handedAt when its message was handed to the queue
 * @param settledAt when its outcome became final: skipped, cancelled or failed, or its message read
 *     or failed (a message delivered or sent may still move, so it has none)
 * @param messageState where its message is ({@code pending} … {@code read}, {@code failed}), once
 *     handed
 * @param sentAt when its message was sent, if it was
 */
public record CampaignRecipient(
    long campaignId,
    String phone,
    Optional<String> name,
    Map<String, String> variables,
    int variant,
    String state,
    Optional<Long> deviceId,
    Optional<Long> messageId,
    Optional<String> reason,
    Optional<Instant> handedAt,
    Optional<Instant> settledAt,
    Optional<String> messageState,
    Optional<Instant> sentAt) {

  public CampaignRecipient {
    variables = Map.copyOf(variables);
  }

  /**
   * Where it is, in one word: its message's state once handed, else its own. The words are the
   * campaign's counts' ({@link Campaign.Counts}), not the message's internal state names: {@code
   * delivered} for a message in state {@code delivery}, and {@code pending} for one still queued
   * ({@code sending} too, whose attempt's outcome is not known yet).
   */
  public String status() {
    if (!state.equals("handed")) {
      return state;
    }
    return switch (messageState.orElse("pending")) {
      case "delivery" -> "delivered";
      case "sending" -> "pending";
      default -> messageState.orElse("pending");
    };
  }
}
