package io.kurir.campaign;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A campaign: one message, personalised, sent to the contacts of a license's book that have any of
 * its audience's tags, or to a list uploaded to it, from a pool of the license's devices, outside
 * quiet hours.
 *
 * @param id Kurir's id of the campaign
 * @param licenseId the license whose book and devices it uses
 * @param name what the operator calls it
 * @param status where it is
 * @param tags the audience: contacts with any of these tags (lower case); empty when the audience
 *     is an uploaded list
 * @param message the native message object (the Cloud API's, without {@code to}), with {@code
 *     {name}}, {@code {phone}} and {@code {attribute}} variables in its text and captions
 * @param variants other message objects: each recipient gets one of the message and these, picked
 *     at random (empty: the message)
 * @param devices the device pool's ids; empty: every enabled device of the license
 * @param startAt when it may start sending, if later than its start
 * @param quietHours when it sends nothing, in the operator's time zone; empty: at any hour
 * @param expanded whether every recipient is in its list
 * @param cursor the phone of the last contact taken into its list ({@code ""}: none yet)
 * @param stopReason why it paused by itself (no device of its pool can send), if it did
 * @param createdAt when it was made
 * @param updatedAt when it last changed
 * @param startedAt when it was started, if it was
 * @param finishedAt when it ended (done or cancelled), if it did
 * @param waiting why a running campaign sends nothing now, beyond its devices' gaps, if it does
 * @param template the native message object of type {@code template} that the pool's Cloud API
 *     devices send instead of the message and its variants (Meta delivers a free-form message only
 *     inside the customer's 24-hour window), with variables in its text parameters; empty: none
 * @param list whether its audience is a list uploaded to it instead of the book's tags
 * @param listUpload the uploaded list's upload, once an upload completed
 * @param listRows how many contacts the uploaded list holds, once an upload completed
 */
public record Campaign(
    long id,
    long licenseId,
    String name,
    CampaignStatus status,
    List<String> tags,
    ObjectNode message,
    List<ObjectNode> variants,
    List<Long> devices,
    Optional<Instant> startAt,
    Optional<QuietHours> quietHours,
    boolean expanded,
    String cursor,
    Optional<String> stopReason,
    Instant createdAt,
    Instant updatedAt,
    Optional<Instant> startedAt,
    Optional<Instant> finishedAt,
    Optional<Waiting> waiting,
    Optional<ObjectNode> template,
    boolean list,
    Optional<Long> listUpload,
    Optional<Integer> listRows) {

  public Campaign {
    tags = List.copyOf(tags);
    variants = List.copyOf(variants);
    devices = List.copyOf(devices);
  }

  /**
   * Why a running campaign sends nothing now, and until when (the safe-sending policy, issue 30
   * item 3): {@code daily_cap} (every device of its pool used its day's cap: it goes on the next
   * day), {@code unanswered} (every device of its pool holds while too many of its messages went
   * unanswered), {@code quiet_hours}. Not a status: the campaign is still running.
   *
   * @param reason one of the reasons above
   * @param until when it sends again at the latest, as things stand
   */
  public record Waiting(String reason, Instant until) {}

  /** The message object of variant {@code n} (0: the campaign's message). */
  public ObjectNode variant(int n) {
    return n == 0 ? message : variants.get(n - 1);
  }

  /**
   * What a device sends to a recipient of variant {@code n}: a Cloud API device ({@code
   * templatesOnly}) sends the campaign's template when it has one, any other device the variant.
   */
  public ObjectNode messageFor(boolean templatesOnly, int n) {
    return templatesOnly && template.isPresent() ? template.get() : variant(n);
  }

  /**
   * How many recipients are where, for its progress. Each recipient is counted once, where its
   * message is now ({@code queued}: not sent yet; {@code sent}, {@code delivered}, {@code read},
   * {@code failed}), or {@code waiting} (not handed to the queue yet), {@code opted_out} (skipped:
   * the contact unsubscribed), {@code cancelled}; {@code replied} counts those of them who wrote
   * back after their message was handed over.
   */
  public record Counts(
      long total,
      long waiting,
      long queued,
      long sent,
      long delivered,
      long read,
      long failed,
      long replied,
      long optedOut,
      long cancelled) {}
}
