package io.kurir.message;

import io.kurir.tenant.Device;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Sends with an idempotency key ({@link IdempotencyKeys}), for {@link Messages}: finding the
 * messages of the first request with the key, claiming the key in the transaction that stores a new
 * request's messages, and answering a sync repeat from the stored state of the first's messages.
 *
 * <p>A sync repeat does not wait on the sender's in-memory outcomes, which belong to the first
 * caller: it reads the messages' stored state until each is decided or its own deadline passes, and
 * never withdraws a message, which only the first caller may do.
 *
 * <p>Thread-safe.
 */
final class IdempotentSends {
  private static final Duration FIRST_POLL = Duration.ofMillis(20);
  private static final Duration MAX_POLL = Duration.ofMillis(250);

  /** A sync repeat's messages not waited for after this long were dropped by their caller. */
  private static final Duration FORGET_AFTER = Duration.ofMinutes(1);

  private final IdempotencyKeys keys;
  private final MessageStores stores;

  /**
   * The message objects handed to sync repeats, by identity, until their caller waits for them: the
   * same ids may at the same time be waited for by the first caller, through {@link Outcomes}.
   */
  private final Map<Identity, Long> repeats = new ConcurrentHashMap<>();

  IdempotentSends(IdempotencyKeys keys, MessageStores stores) {
    this.keys = keys;
    this.stores = stores;
  }

  /** Compares by identity: two loads of one message are two callers' objects. */
  private record Identity(Message message) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Identity other && other.message == message;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(message);
    }
  }

  /** The claim of {@code request} on its key, if it has one. */
  Optional<IdempotencyKeys.Claim> claimOf(Device device, SendRequest request) {
    return request
        .idempotencyKey()
        .map(key -> keys.claim(device.id(), key, IdempotencyKeys.fingerprint(request)));
  }

  /**
   * The messages the first request with this claim's key stored, as they are now, in the first
   * request's order; empty when there was none.
   *
   * @throws IdempotencyKeyReused when the first request was a different one
   */
  Optional<List<Message>> firstOf(IdempotencyKeys.Claim claim, SendRequest request) {
    Optional<List<Long>> ids = claim.firstAnswer();
    if (ids.isEmpty()) {
      return Optional.empty();
    }
    List<Message> messages = load(ids.get());
    if (request.sync()) {
      long now = System.nanoTime();
      repeats
          .entrySet()
          .removeIf(e -> now - e.getValue() > FORGET_AFTER.toNanos()); // dropped by their caller
      messages.forEach(m -> repeats.put(new Identity(m), now));
    }
    return Optional.of(messages);
  }

  /**
   * The guard of the transaction that stores a new request's {@code messages}: true when no request
   * with the key was stored before, and then the key is recorded with their ids.
   */
  Messages.Guard firstWithKey(IdempotencyKeys.Claim claim, List<Message> messages) {
    List<Long> ids = messages.stream().map(Message::id).toList();
    return (tx, messageId) -> {
      if (claim.takenIn(tx)) {
        return false;
      }
      claim.recordIn(tx, ids);
      return true;
    };
  }

  /** Whether {@code messages} were handed to a sync repeat by {@link #firstOf}. */
  boolean isRepeat(List<Message> messages) {
    return !messages.isEmpty() && repeats.containsKey(new Identity(messages.getFirst()));
  }

  /**
   * The first outcome of each message of a sync repeat, read from its stored state: once it went
   * out or failed, at once; while it is still queued, the state is read again until {@code
   * deadline}, and a message still undecided then is answered {@link SendResult#TIMEOUT}, as the
   * first caller would have been.
   */
  List<SendResult> awaitStored(List<Message> messages, Instant deadline) {
    messages.forEach(m -> repeats.remove(new Identity(m)));
    List<Long> ids = messages.stream().map(Message::id).toList();
    Duration pause = FIRST_POLL;
    while (true) {
      List<Message> now = load(ids);
      List<SendResult> results = new ArrayList<>(now.size());
      boolean decided = true;
      for (Message m : now) {
        Optional<SendResult> r = outcomeOf(m);
        decided &= r.isPresent();
        results.add(r.orElse(SendResult.TIMEOUT));
      }
      // Deadlines of sync calls are in real time: the caller's HTTP client does not read our clock.
      long left = Duration.between(Instant.now(), deadline).toMillis();
      if (decided || left <= 0) {
        return results;
      }
      try {
        Thread.sleep(Math.min(pause.toMillis(), left));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return results;
      }
      pause = pause.multipliedBy(2).compareTo(MAX_POLL) > 0 ? MAX_POLL : pause.multipliedBy(2);
    }
  }

  /**
   * The first outcome a sync caller was told, as the stored state shows it; empty while the message
   * is still waiting for its first attempt.
   */
  static Optional<SendResult> outcomeOf(Message m) {
    if (m.state().wentOut()) {
      return Optional.of(SendResult.SENT);
    }
    if (m.state() == MessageState.FAILED
        || (m.state() == MessageState.PENDING && m.attempts() > 0 && m.reason().isPresent())) {
      // A pending message with a failed attempt is a flag_retry=on one, kept for another try: its
      // caller was told the first attempt's failure.
      return Optional.of(
          switch (m.reason().orElse("")) {
            case FailureReason.NUMBER_NOT_FOUND -> SendResult.NUMBER_NOT_FOUND;
            case FailureReason.PHONE_OFFLINE -> SendResult.PHONE_OFFLINE;
            case FailureReason.TIMEOUT -> SendResult.TIMEOUT;
            default -> SendResult.FAILED;
          });
    }
    return Optional.empty();
  }

  private List<Message> load(List<Long> ids) {
    Map<Long, Message> byId =
        stores.reads().findAll(ids).stream()
            .collect(Collectors.toMap(Message::id, Function.identity()));
    List<Message> ordered = new ArrayList<>(ids.size());
    for (long id : ids) {
      Message m = byId.get(id);
      if (m == null) {
        throw new IllegalStateException("message " + id + " of an idempotency key is gone");
      }
      ordered.add(m);
    }
    return ordered;
  }
}
