package io.kurir.message;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * Waits for the commit of an accept, bounded by {@link Messages#commitWithin} (14 s): a caller
 * refused "busy" never finds its messages sent later. Also the accept of messages handed straight
 * to their device's idle sender: stored already claimed, in one commit, so a send to a device with
 * nothing queued costs one commit before the driver, not two; whichever comes first decides, the
 * commit or the caller's deadline.
 *
 * <p>Thread-safe: stateless beyond what it is given.
 */
final class AcceptCommits {
  private final MessageStores stores;
  private final Leases leases;
  private final Outcomes outcomes;
  private final Clock clock;
  // 14 s unless a test sets it shorter to see a stalled commit run out (Messages.commitWithin).
  private volatile java.time.Duration timeout = Messages.ACCEPT_TIMEOUT;

  AcceptCommits(MessageStores stores, Leases leases, Outcomes outcomes, Clock clock) {
    this.stores = stores;
    this.leases = leases;
    this.outcomes = outcomes;
    this.clock = clock;
  }

  /** How long an accept waits for its commit; see {@link Messages#commitWithin}. */
  void commitWithin(java.time.Duration timeout) {
    this.timeout = timeout;
  }

  /**
   * Stores messages claimed for their idle sender in the same commit, and hands them over: a send
   * to a device with nothing queued costs one commit before the driver, not two.
   */
  List<Message> acceptHandedOver(DeviceSender sender, List<Message> messages) {
    Instant now = clock.instant();
    // Whichever comes first decides: the commit (handed over, the caller learns the ids) or the
    // caller's deadline (refused "busy", and then nothing of it may go out).
    java.util.concurrent.atomic.AtomicBoolean decided =
        new java.util.concurrent.atomic.AtomicBoolean();
    CompletableFuture<Set<Long>> commit =
        stores.queue().insertClaimed(messages, leases.owner(), now);
    // The caller waits for the hand-over itself, not only the commit: answered earlier, it could
    // send its next message, which a sender could then read from the queue and send ahead of
    // this one.
    CompletableFuture<Set<Long>> handedOver =
        commit.whenComplete(
            (claimedIds, error) -> {
              boolean refused = !decided.compareAndSet(false, true);
              List<Message> handed = new ArrayList<>();
              for (Message m : messages) {
                if (claimedIds != null && claimedIds.contains(m.id())) {
                  if (refused) { // the caller was told "busy": it must not go out
                    stores
                        .outcomes()
                        .moveLater(
                            m.id(),
                            MessageState.FAILED,
                            Set.of(MessageState.SENDING),
                            clock.instant(),
                            FailureReason.TIMEOUT,
                            true);
                  } else {
                    handed.add(m.withAttempts(1));
                  }
                }
              }
              sender.handOvers().handOver(handed);
              if (handed.size() < messages.size()) {
                Set<Long> handedIds = new java.util.HashSet<>();
                handed.forEach(m -> handedIds.add(m.id()));
                sender
                    .handOvers()
                    .forgetHeld(
                        messages.stream().filter(m -> !handedIds.contains(m.id())).toList());
              }
              if (claimedIds != null && handed.size() < messages.size()) {
                sender.wake(); // stored, not claimed (the lease moved): they wait like any other
              }
            });
    try {
      CommitWait.within(handedOver, timeout);
    } catch (TimeoutException e) {
      if (!decided.compareAndSet(false, true)) {
        return messages; // committed and handed over just now: the caller learns the ids
      }
      messages.forEach(m -> outcomes.forget(m.id()));
      // Queued behind the insert: withdraws them if they were stored but not claimed.
      throw withdrawnBusy(messages);
    } catch (ExecutionException e) {
      messages.forEach(m -> outcomes.forget(m.id()));
      throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      messages.forEach(m -> outcomes.forget(m.id()));
      throw new IllegalStateException("interrupted while accepting", e);
    }
    return messages;
  }

  /**
   * Waits for the commit that stores {@code messages}. When it does not come in time and {@code
   * withdraw} is set (an HTTP caller is refused), the messages are withdrawn by a write queued
   * behind it, so the refusal is the truth: whatever the first write does later, nothing of this
   * request goes out. Without it (the scheduler, auto-replies: no caller to tell), what commits
   * later is sent: its sender looks once it is committed.
   */
  <T> T awaitCommit(CompletableFuture<T> commit, List<Message> messages, boolean withdraw) {
    try {
      return CommitWait.within(commit, timeout);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e);
    } catch (TimeoutException e) {
      if (!withdraw) {
        throw new IllegalStateException("the database did not commit within " + timeout);
      }
      throw withdrawnBusy(messages);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while accepting", e);
    }
  }

  /**
   * Withdraws {@code messages} by a write queued behind the one that did not commit in time (it
   * withdraws what that write stores), and the refusal the caller is given.
   */
  private SendRefused withdrawnBusy(List<Message> messages) {
    stores
        .outcomes()
        .withdrawLater(
            messages.stream().map(Message::id).toList(), FailureReason.TIMEOUT, clock.instant());
    return new SendRefused(
        SendRefused.Reason.BUSY,
        "the database did not commit within " + timeout + "; nothing was sent");
  }
}
