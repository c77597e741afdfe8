package io.kurir.message;

import static io.kurir.message.MessageRowStore.history;
import static io.kurir.message.MessageRowStore.move;

import io.kurir.store.Database;
import io.kurir.store.Transaction;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * The SQL of the crash rule: what a lease holder that was cut off left {@code sending} is queued
 * again or failed when the next holder takes the lease.
 */
final class RecoveryStore {
  private final Database db;
  private final StatusHook hook;

  RecoveryStore(Database db, StatusHook hook) {
    this.db = db;
    this.hook = hook;
  }

  /**
   * After a crash, a device's messages found {@code sending} (their outcome unknown): sent again
   * when the driver de-duplicates, else {@code failed} with reason {@code interrupted}, or queued
   * for another attempt under {@code flag_retry=on}. Returns how many of each. A message with a
   * network id is not among them: the network accepted it and reports its outcome later.
   */
  Recovered recoverInterrupted(long deviceId, boolean driverDeduplicates, Instant at) {
    boolean[] hooked = {false};
    Recovered recovered =
        db.writes()
            .write(
                h -> {
                  // By state alone, so that the index of sending messages is used; those with a
                  // network id (the network has them) are left out here.
                  List<long[]> interrupted =
                      h
                          .createQuery(
                              "SELECT id, retry, network_id FROM message WHERE device_id = ?"
                                  + " AND state = 'sending'")
                          .bind(0, deviceId)
                          .map(
                              (rs, ctx) ->
                                  rs.getString(3) == null
                                      ? new long[] {rs.getLong(1), rs.getLong(2)}
                                      : null)
                          .list()
                          .stream()
                          .filter(java.util.Objects::nonNull)
                          .toList();
                  int resent = 0;
                  int failed = 0;
                  for (long[] row : interrupted) {
                    long id = row[0];
                    boolean again = driverDeduplicates || row[1] != 0;
                    if (again) {
                      String why =
                          driverDeduplicates
                              ? FailureReason.INTERRUPTED
                                  + "; sent again, the network de-duplicates"
                              : FailureReason.INTERRUPTED + "; flag_retry: another attempt";
                      h.createUpdate(
                              "UPDATE message SET state = 'pending', reason = ?, status_at = ?"
                                  + " WHERE id = ? AND state = 'sending'")
                          .bind(0, driverDeduplicates ? null : FailureReason.INTERRUPTED)
                          .bind(1, at.toEpochMilli())
                          .bind(2, id)
                          .execute();
                      history(h, id, MessageState.PENDING, why, at);
                      resent++;
                    } else if (move(
                        h,
                        id,
                        MessageState.FAILED,
                        Set.of(MessageState.SENDING),
                        at,
                        FailureReason.INTERRUPTED)) {
                      hooked[0] |=
                          hook.moved(
                              Transaction.of(h),
                              id,
                              MessageState.FAILED,
                              FailureReason.INTERRUPTED,
                              at);
                      failed++;
                    }
                  }
                  return new Recovered(resent, failed);
                });
    if (hooked[0]) {
      hook.committed();
    }
    return recovered;
  }

  /** What {@link #recoverInterrupted} did. */
  record Recovered(int queuedAgain, int failed) {}
}
