package io.kurir.campaign;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A campaign's sends and outcomes over time, counted in buckets of equal width from {@code from}:
 * for its chart. Each count is of the events that happened in the bucket: recipients handed to the
 * queue ({@code queued}), messages sent, and messages whose outcome (delivered, read, failed) or
 * recipients whose opt-out was recorded then. A message is counted once under its outcome now, at
 * the time it reached it: one read is not also counted delivered.
 *
 * @param from the start of the first bucket
 * @param width each bucket's width
 * @param queued recipients handed to the queue, per bucket
 * @param sent messages sent, per bucket
 * @param delivered messages delivered (and not read since), per bucket
 * @param read messages read, per bucket
 * @param failed messages or recipients failed, per bucket
 * @param optedOut recipients skipped because they opted out, per bucket
 */
public record CampaignTimeline(
    Instant from,
    Duration width,
    List<Long> queued,
    List<Long> sent,
    List<Long> delivered,
    List<Long> read,
    List<Long> failed,
    List<Long> optedOut) {

  public CampaignTimeline {
    queued = List.copyOf(queued);
    sent = List.copyOf(sent);
    delivered = List.copyOf(delivered);
    read = List.copyOf(read);
    failed = List.copyOf(failed);
    optedOut = List.copyOf(optedOut);
  }

  /** How many buckets it has. */
  public int buckets() {
    return queued.size();
  }
}
