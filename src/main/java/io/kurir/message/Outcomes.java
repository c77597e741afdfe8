package io.kurir.message;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sync callers waiting for the first outcome of their messages. A future is registered when the
 * message is accepted and stays until its caller has taken the outcome, because the sender may
 * report before the caller starts waiting. Thread-safe.
 */
final class Outcomes {
  private final Map<Long, CompletableFuture<SendResult>> waiting = new ConcurrentHashMap<>();
  private volatile java.util.function.LongConsumer elsewhere = id -> {};

  /** Who hears of a sync message's outcome that no caller here waits for (another node's). */
  void tellElsewhere(java.util.function.LongConsumer elsewhere) {
    this.elsewhere = elsewhere;
  }

  /** Whether a caller here waits for the message. */
  boolean isExpected(long messageId) {
    return waiting.containsKey(messageId);
  }

  /** Registers a sync message before it can be sent. */
  void expect(long messageId) {
    waiting.putIfAbsent(messageId, new CompletableFuture<>());
  }

  /** The future of a registered message; one that was never registered never completes. */
  CompletableFuture<SendResult> of(long messageId) {
    return waiting.getOrDefault(messageId, new CompletableFuture<>());
  }

  /**
   * Completes the future of a registered message; later reports of the same message are ignored.
   */
  void report(long messageId, SendResult result) {
    CompletableFuture<SendResult> f = waiting.get(messageId);
    if (f != null) {
      f.complete(result);
    }
  }

  /**
   * {@link #report} of a sync message's committed outcome; when no caller here waits for it, its
   * caller may wait on another node, which is told.
   */
  void reportSync(long messageId, SendResult result) {
    CompletableFuture<SendResult> f = waiting.get(messageId);
    if (f != null) {
      f.complete(result);
    } else {
      elsewhere.accept(messageId);
    }
  }

  /** The caller is done with the message. */
  void forget(long messageId) {
    waiting.remove(messageId);
  }
}
