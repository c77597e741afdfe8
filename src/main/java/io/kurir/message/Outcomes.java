package io.kurir.message;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/** Sync callers waiting for the first outcome of their messages. Thread-safe. */
final class Outcomes {
  private final Map<Long, CompletableFuture<SendResult>> waiting = new ConcurrentHashMap<>();

  CompletableFuture<SendResult> expect(long messageId) {
    return waiting.computeIfAbsent(messageId, id -> new CompletableFuture<>());
  }

  void report(long messageId, SendResult result) {
    CompletableFuture<SendResult> f = waiting.remove(messageId);
    if (f != null) {
      f.complete(result);
    }
  }

  void forget(long messageId) {
    waiting.remove(messageId);
  }
}
