package io.kurir.campaign;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Rotation across a campaign's pool weighted by each device's remaining daily cap (ANSWERS.md,
 * "Campaigns"): smooth weighted round-robin, so that over any run of picks each device takes its
 * share of them, in an even interleaving rather than in blocks, and devices of equal weight take
 * turns exactly. Deterministic: which device a recipient goes to never depends on chance.
 *
 * <p>Not thread-safe: one per campaign, on the runner's thread.
 */
final class WeightedRotation {
  /** A device that may take a recipient now, with its weight (its remaining daily cap). */
  record Candidate(long deviceId, long weight) {}

  private final Map<Long, Long> current = new HashMap<>();

  /**
   * The device that takes the next recipient, among {@code candidates} (not empty): each gains its
   * weight, the one ahead takes it and falls back by the candidates' total weight.
   */
  long pick(List<Candidate> candidates) {
    long total = 0;
    Candidate best = null;
    long bestScore = Long.MIN_VALUE;
    for (Candidate c : candidates) {
      long weight = Math.max(1, c.weight());
      total += weight;
      long score = current.merge(c.deviceId(), weight, Long::sum);
      if (score > bestScore) {
        best = c;
        bestScore = score;
      }
    }
    current.merge(best.deviceId(), -total, Long::sum);
    return best.deviceId();
  }
}
