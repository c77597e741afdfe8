package io.kurir.store;

import java.time.Clock;
import java.time.Instant;

/**
 * Issues ids that are unique across nodes and increasing: {@code [41 bits of milliseconds since
 * 2025-01-01][4 bits node][8 bits sequence]}.
 *
 * <p>Ids stay below 2^53 on purpose: clients in JavaScript and Apps Script, and spreadsheets that
 * store the id in a cell, read numbers as doubles, and a larger id would silently change. 256 ids
 * per millisecond per node is 256,000 a second; a burst beyond that borrows milliseconds from the
 * future, and the ids stay unique and increasing even if the wall clock steps back.
 *
 * <p>Thread-safe.
 */
public final class IdGenerator {
  static final long EPOCH_MILLIS = Instant.parse("2025-01-01T00:00:00Z").toEpochMilli();
  static final int NODE_BITS = 4;
  static final int SEQUENCE_BITS = 8;
  public static final long MAX_ID = (1L << 53) - 1;

  private final Clock clock;
  private final long node;
  private long lastId;

  public IdGenerator(Clock clock, int nodeId) {
    if (nodeId < 0 || nodeId >= (1 << NODE_BITS)) {
      throw new IllegalArgumentException("node id must be 0.." + ((1 << NODE_BITS) - 1));
    }
    this.clock = clock;
    this.node = nodeId;
  }

  /**
   * Makes sure every id issued from now on is greater than {@code floor}: after a restart the
   * generator continues above the largest id already stored, whatever the clock says and whichever
   * node wrote it.
   */
  public synchronized void continueAfter(long floor) {
    lastId = Math.max(lastId, floor);
  }

  public synchronized long next() {
    long tick = Math.max(clock.millis() - EPOCH_MILLIS, 0);
    long id = compose(tick, 0);
    if (id <= lastId) {
      // Same or earlier millisecond than the last id (a burst, or the clock stepped back):
      // continue right after it, borrowing the next millisecond when this one is used up.
      long lastTick = lastId >>> (NODE_BITS + SEQUENCE_BITS);
      long lastNode = (lastId >>> SEQUENCE_BITS) & ((1L << NODE_BITS) - 1);
      long lastSequence = lastId & sequenceMask();
      if (lastNode == node && lastSequence < sequenceMask()) {
        id = compose(lastTick, lastSequence + 1);
      } else if (lastNode < node) {
        id = compose(lastTick, 0);
      } else {
        id = compose(lastTick + 1, 0);
      }
    }
    if (id > MAX_ID) {
      throw new IllegalStateException("id space exhausted");
    }
    lastId = id;
    return id;
  }

  private long compose(long tick, long sequence) {
    return (tick << (NODE_BITS + SEQUENCE_BITS)) | (node << SEQUENCE_BITS) | sequence;
  }

  private static long sequenceMask() {
    return (1L << SEQUENCE_BITS) - 1;
  }
}
