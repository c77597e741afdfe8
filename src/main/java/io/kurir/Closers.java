package io.kurir;

import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a gateway opened, closed in the reverse order: one stack serves both the rollback of a start
 * that failed half way and the shutdown of a running gateway, so the two cannot drift apart.
 *
 * <p>Each part is pushed right after it is opened, with a note of why it stops where it does; a
 * part that fails to close is logged and the rest still close. Not thread-safe: a gateway opens and
 * closes on one thread.
 */
final class Closers implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Closers.class);

  private record Part(String name, AutoCloseable closer) {}

  private final Deque<Part> opened = new ArrayDeque<>();

  /** Registers {@code closer} to run before everything pushed earlier; returns {@code part}. */
  <T> T push(String name, T part, AutoCloseable closer) {
    opened.push(new Part(name, closer));
    return part;
  }

  /** Registers an {@link AutoCloseable} part under {@code name}; returns it. */
  <T extends AutoCloseable> T push(String name, T part) {
    return push(name, part, part);
  }

  /** Closes every part, the last opened first; each failure is logged, none stops the rest. */
  @Override
  public void close() {
    while (!opened.isEmpty()) {
      Part part = opened.pop();
      try {
        part.closer().close();
      } catch (Exception | LinkageError e) {
        log.error("closing {} failed", part.name(), e);
      }
    }
  }
}
