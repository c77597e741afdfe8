package io.kurir.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kurir.time.SettableClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IdGeneratorTest {
  private static final Instant START = Instant.parse("2026-03-15T08:30:00.123Z");
  private static final int SHIFT = IdGenerator.NODE_BITS + IdGenerator.SEQUENCE_BITS;

  private final SettableClock clock = new SettableClock(START);

  private static long tickOf(long id) {
    return id >>> SHIFT;
  }

  private static long nodeOf(long id) {
    return (id >>> IdGenerator.SEQUENCE_BITS) & ((1 << IdGenerator.NODE_BITS) - 1);
  }

  private static long[] take(IdGenerator ids, int count) {
    long[] out = new long[count];
    for (int i = 0; i < count; i++) {
      out[i] = ids.next();
    }
    return out;
  }

  private static void assertStrictlyIncreasing(long[] ids) {
    for (int i = 1; i < ids.length; i++) {
      assertThat(ids[i]).as("id #%d", i).isGreaterThan(ids[i - 1]);
    }
  }

  @Test
  void idsCarryTheMillisecondsSinceEpochAndTheNode() {
    long id = new IdGenerator(clock, 7).next();

    assertThat(tickOf(id)).isEqualTo(START.toEpochMilli() - IdGenerator.EPOCH_MILLIS);
    assertThat(nodeOf(id)).isEqualTo(7);
    assertThat(id).isPositive().isLessThanOrEqualTo(IdGenerator.MAX_ID);
  }

  @Test
  void maxIdIsTheLargestIntegerADoubleHoldsExactly() {
    assertThat(IdGenerator.MAX_ID).isEqualTo(9_007_199_254_740_991L);
    assertThat((long) (double) IdGenerator.MAX_ID).isEqualTo(IdGenerator.MAX_ID);
  }

  @Test
  void idsAreUniqueAndIncreasingAsTheClockMoves() {
    IdGenerator ids = new IdGenerator(clock, 3);
    long[] out = new long[10_000];
    for (int i = 0; i < out.length; i++) {
      if (i % 7 == 0) {
        clock.advance(Duration.ofMillis(1));
      }
      out[i] = ids.next();
    }

    assertStrictlyIncreasing(out);
    assertThat(out).doesNotHaveDuplicates();
    assertThat(LongStream.of(out).boxed().toList())
        .allSatisfy(id -> assertThat((long) (double) id).isEqualTo(id));
  }

  @Test
  void moreThan256IdsInOneMillisecondBorrowTheNextMilliseconds() {
    IdGenerator ids = new IdGenerator(clock, 0);
    long[] out = take(ids, 1_000);

    assertStrictlyIncreasing(out);
    assertThat(out).doesNotHaveDuplicates();
    long firstTick = tickOf(out[0]);
    assertThat(tickOf(out[255])).isEqualTo(firstTick);
    assertThat(tickOf(out[256])).isEqualTo(firstTick + 1);
    assertThat(tickOf(out[999])).isEqualTo(firstTick + 3);
    assertThat(LongStream.of(out).boxed().toList())
        .allSatisfy(id -> assertThat(nodeOf(id)).isZero());
  }

  @Test
  void afterABurstTheClockCatchingUpKeepsIdsIncreasing() {
    IdGenerator ids = new IdGenerator(clock, 0);
    long[] burst = take(ids, 600); // runs two milliseconds ahead of the clock
    clock.advance(Duration.ofMillis(1)); // still behind the borrowed milliseconds
    long[] after = take(ids, 300);
    clock.advance(Duration.ofMillis(10));
    long later = ids.next();

    assertThat(after[0]).isGreaterThan(burst[burst.length - 1]);
    assertStrictlyIncreasing(after);
    assertThat(later).isGreaterThan(after[after.length - 1]);
    assertThat(tickOf(later)).isEqualTo(START.toEpochMilli() + 11 - IdGenerator.EPOCH_MILLIS);
  }

  @Test
  void idsNeverExceedMaxIdAndTheGeneratorRefusesRatherThanOverflow() {
    long lastTick = (1L << 41) - 1;
    clock.set(Instant.ofEpochMilli(IdGenerator.EPOCH_MILLIS + lastTick));
    IdGenerator ids = new IdGenerator(clock, 15);

    long[] out = take(ids, 256);

    assertThat(out[255]).isEqualTo(IdGenerator.MAX_ID);
    assertThat(LongStream.of(out).boxed().toList())
        .allSatisfy(id -> assertThat(id).isLessThanOrEqualTo(IdGenerator.MAX_ID));
    assertThatThrownBy(ids::next).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aClockBeforeTheEpochStillGivesIncreasingNonNegativeIds() {
    clock.set(Instant.parse("2020-01-01T00:00:00Z"));
    long[] out = take(new IdGenerator(clock, 2), 300);

    assertThat(out[0]).isNotNegative();
    assertStrictlyIncreasing(out);
  }

  @Test
  void differentNodesNeverIssueTheSameIdAtTheSameInstant() {
    Set<Long> seen = new HashSet<>();
    for (int node = 0; node < 16; node++) {
      IdGenerator ids = new IdGenerator(clock, node);
      for (long id : take(ids, 300)) {
        assertThat(seen.add(id)).as("id %d of node %d is new", id, node).isTrue();
        assertThat(nodeOf(id)).isEqualTo(node);
      }
    }
    assertThat(seen).hasSize(16 * 300);
  }

  @Test
  void firstIdsOfTwoNodesAtTheSameInstantDiffer() {
    long a = new IdGenerator(clock, 1).next();
    long b = new IdGenerator(clock, 2).next();

    assertThat(a).isNotEqualTo(b);
    assertThat(tickOf(a)).isEqualTo(tickOf(b));
  }

  @Test
  void continueAfterJumpsAboveAFloorFromTheFuture() {
    SettableClock earlierRun = new SettableClock(START.plus(Duration.ofHours(1)));
    long floor = take(new IdGenerator(earlierRun, 4), 10)[9];

    IdGenerator ids = new IdGenerator(clock, 4); // restarted with a clock an hour behind
    ids.continueAfter(floor);
    long[] out = take(ids, 1_000);

    assertThat(out[0]).isGreaterThan(floor);
    assertStrictlyIncreasing(out);
  }

  @Test
  void continueAfterAFloorThatUsedTheLastSequenceOfItsMillisecond() {
    SettableClock earlierRun = new SettableClock(START.plusSeconds(60));
    long floor = take(new IdGenerator(earlierRun, 1), 256)[255];
    assertThat(floor & 0xFF).isEqualTo(255);

    IdGenerator ids = new IdGenerator(clock, 1);
    ids.continueAfter(floor);

    assertThat(ids.next()).isGreaterThan(floor);
  }

  @Test
  void continueAfterAFloorInTheSameMillisecond() {
    IdGenerator before = new IdGenerator(clock, 6);
    long floor = take(before, 50)[49];

    IdGenerator restarted = new IdGenerator(clock, 6);
    restarted.continueAfter(floor);

    assertThat(restarted.next()).isGreaterThan(floor);
  }

  @Test
  void continueAfterALowerFloorNeverMovesBackwards() {
    IdGenerator ids = new IdGenerator(clock, 0);
    long last = take(ids, 300)[299];

    ids.continueAfter(0);
    ids.continueAfter(last - 5);

    assertThat(ids.next()).isGreaterThan(last);
  }

  @Test
  void continueAfterAPastFloorLeavesTheClockInCharge() {
    IdGenerator ids = new IdGenerator(clock, 0);
    ids.continueAfter(new IdGenerator(new SettableClock(START.minusSeconds(5)), 0).next());

    assertThat(tickOf(ids.next())).isEqualTo(START.toEpochMilli() - IdGenerator.EPOCH_MILLIS);
  }

  @Test
  void continueAfterAFloorWrittenByAHigherNode() {
    long floor = new IdGenerator(new SettableClock(START.plusSeconds(60)), 9).next();

    IdGenerator ids = new IdGenerator(clock, 0);
    ids.continueAfter(floor);

    assertThat(ids.next()).isGreaterThan(floor);
  }

  @Test
  void clockSteppingBackwardsStillGivesIncreasingIds() {
    IdGenerator ids = new IdGenerator(clock, 5);
    long[] before = take(ids, 20);
    clock.set(START.minus(Duration.ofHours(2)));
    long[] after = take(ids, 1_000);
    clock.set(START.plusMillis(1));
    long[] recovered = take(ids, 20);

    assertThat(after[0]).isGreaterThan(before[before.length - 1]);
    assertStrictlyIncreasing(after);
    assertThat(recovered[0]).isGreaterThan(after[after.length - 1]);
    assertStrictlyIncreasing(recovered);
  }

  @ParameterizedTest
  @ValueSource(ints = {-1, 16, 17, Integer.MIN_VALUE, Integer.MAX_VALUE})
  void rejectsNodeIdsOutsideFourBits(int nodeId) {
    assertThatThrownBy(() -> new IdGenerator(clock, nodeId))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("node id");
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 15})
  void acceptsTheSmallestAndLargestNodeIds(int nodeId) {
    assertThat(nodeOf(new IdGenerator(clock, nodeId).next())).isEqualTo(nodeId);
  }

  @Test
  void threadsSharingAFixedClockGetNoDuplicates() throws Exception {
    assertNoDuplicatesAcrossThreads(new IdGenerator(clock, 1), null);
  }

  @Test
  void threadsSharingAMovingClockGetNoDuplicates() throws Exception {
    IdGenerator ids = new IdGenerator(clock, 1);
    assertNoDuplicatesAcrossThreads(ids, () -> clock.advance(Duration.ofMillis(1)));
  }

  @Test
  void threadsSharingTheSystemClockGetNoDuplicates() throws Exception {
    assertNoDuplicatesAcrossThreads(new IdGenerator(Clock.systemUTC(), 1), null);
  }

  /** Starts all threads at once; {@code everyHundred}, if given, runs between ids of thread 0. */
  private static void assertNoDuplicatesAcrossThreads(IdGenerator ids, Runnable everyHundred)
      throws Exception {
    int threads = 8;
    int perThread = 5_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch ready = new CountDownLatch(threads);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<long[]>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        boolean mover = t == 0 && everyHundred != null;
        results.add(
            pool.submit(
                () -> {
                  ready.countDown();
                  go.await();
                  long[] out = new long[perThread];
                  for (int i = 0; i < perThread; i++) {
                    if (mover && i % 100 == 0) {
                      everyHundred.run();
                    }
                    out[i] = ids.next();
                  }
                  return out;
                }));
      }
      assertThat(ready.await(60, TimeUnit.SECONDS)).isTrue();
      go.countDown();

      Set<Long> all = new HashSet<>();
      for (Future<long[]> f : results) {
        long[] out = f.get(60, TimeUnit.SECONDS);
        assertStrictlyIncreasing(out); // each thread sees its own ids increase
        for (long id : out) {
          all.add(id);
        }
      }
      assertThat(all).hasSize(threads * perThread);
    } finally {
      pool.shutdownNow();
    }
  }
}
