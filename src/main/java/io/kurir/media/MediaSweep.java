package io.kurir.media;

import io.kurir.logging.RepeatingFailure;
import io.kurir.store.Database;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes kept files that no message, upload or incoming message refers to any more (an upload
 * replaced by one of the same name, a file kept for a request that was then refused, a half-written
 * {@code .part} left by a crash), so that the media folder follows what the database holds, not the
 * gateway's uptime. A file is removed only once it has not been used for {@link #GRACE} on the
 * injected clock: a file is kept before the row that refers to it is committed, and that gap must
 * not lose it. Runs once an hour and survives any error.
 *
 * <p>Thread-safe.
 */
public final class MediaSweep implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MediaSweep.class);

  /** How long an unreferenced file stays after its last use: far longer than a keep-to-commit. */
  public static final Duration GRACE = Duration.ofHours(1);

  private static final Duration EVERY = Duration.ofHours(1);

  private final MediaFiles files;
  private final MediaReferenceStore references;
  private final Clock clock;
  private final ScheduledExecutorService loop =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().daemon(true).name("media-sweep").unstarted(r));

  private final java.time.Duration keepFor;
  // Sweeps that fail, told once while they repeat; the sweep thread's.
  private final RepeatingFailure failures;

  /**
   * @param keepFor how long the file of a message that ended, or of an incoming message, is kept
   *     ({@code media.keep-for}); zero keeps them forever
   */
  public MediaSweep(MediaFiles files, Database db, Clock clock, java.time.Duration keepFor) {
    this.files = files;
    this.references = new MediaReferenceStore(db);
    this.clock = clock;
    this.keepFor = keepFor;
    this.failures = RepeatingFailure.atFixedPace(log, "the media sweep", clock, EVERY);
  }

  /** Sweeps a minute after the start (not in the way of start-up), then every hour. */
  public void start() {
    loop.scheduleWithFixedDelay(this::sweepAndLog, 60, EVERY.toSeconds(), TimeUnit.SECONDS);
  }

  /** One scheduled sweep: what it removed, or why it failed, told once while that repeats. */
  void sweepAndLog() {
    try {
      int removed = sweepOnce();
      failures.succeeded();
      if (removed > 0) {
        log.info("media sweep: removed {} files no row refers to", removed);
      }
    } catch (Throwable t) { // the loop must outlive anything; it tries again in an hour
      failures.failed(t);
    }
  }

  /** One sweep: how many files it removed. */
  public int sweepOnce() throws IOException {
    Path folder = files.folder();
    if (!Files.isDirectory(folder)) {
      return 0;
    }
    if (keepFor.isPositive()) {
      references.releaseOlderThan(clock.instant().minus(keepFor));
    }
    Instant usedBefore = clock.instant().minus(GRACE);
    // The files first, then the rows: a file kept after this listing is not looked at, and one
    // kept before it is either old enough and unreferenced, or protected by its time.
    List<Path> candidates;
    try (Stream<Path> walk = Files.walk(folder, 2)) {
      candidates = walk.filter(Files::isRegularFile).toList();
    }
    Set<String> inUse = references.namesInUse();
    int removed = 0;
    for (Path file : candidates) {
      if (!inUse.contains(file.getFileName().toString())
          && files.removeIfUnusedSince(file, usedBefore)) {
        removed++;
      }
    }
    return removed;
  }

  @Override
  public void close() {
    loop.shutdownNow();
  }
}
