package io.kurir.campaign;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What a caller asks a new campaign to be ({@link Campaigns#create}).
 *
 * @param name what the operator calls it
 * @param tags the audience's tags (at least one)
 * @param message the native message object, with variables
 * @param variants other message objects to pick from per recipient
 * @param devices the pool, by device id or number; empty: every enabled device of the license
 * @param startAt when it may start sending, if later than its start
 * @param quietHours the quiet hours; {@link QuietHours#DEFAULT} unless given, empty when the caller
 *     turned them off
 * @param template the template object ({@code {name, language: {code}, components}}) the pool's
 *     Cloud API devices send; empty: none
 * @param list whether the audience is a list uploaded to the campaign ({@link
 *     Campaigns#uploadList}) instead of the book's tags (then {@code tags} is empty)
 */
public record CampaignDraft(
    String name,
    List<String> tags,
    ObjectNode message,
    List<ObjectNode> variants,
    List<String> devices,
    Optional<Instant> startAt,
    Optional<QuietHours> quietHours,
    Optional<ObjectNode> template,
    boolean list) {

  public CampaignDraft {
    tags = List.copyOf(tags);
    variants = List.copyOf(variants);
    devices = List.copyOf(devices);
  }

  /** A draft whose audience is the book's {@code tags}. */
  public CampaignDraft(
      String name,
      List<String> tags,
      ObjectNode message,
      List<ObjectNode> variants,
      List<String> devices,
      Optional<Instant> startAt,
      Optional<QuietHours> quietHours,
      Optional<ObjectNode> template) {
    this(name, tags, message, variants, devices, startAt, quietHours, template, false);
  }
}
