package io.kurir.driver;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link DriverListener} that keeps everything a driver tells it, for the {@link DriverContract}:
 * the suite reads what a driver reported instead of what the core made of it. Incoming messages can
 * be refused ({@link #refuseIncoming}), as a core that cannot store them throws. Thread-safe.
 */
public final class RecordingListener implements DriverListener {

  /** An outcome reported later, for a send that answered {@link SendOutcome.Accepted}. */
  public record Outcome(long deviceId, long messageId, SendOutcome outcome) {}

  /** A change of connection. */
  public record Connection(long deviceId, boolean connected) {}

  /** A change of session state. */
  public record State(long deviceId, DeviceState state, String reason) {}

  /** A device held until resumed ({@link DriverListener#hold}). */
  public record Hold(long deviceId, String reason) {}

  /** A line for a message's history ({@link DriverListener#note}). */
  public record Note(long deviceId, long messageId, String note) {}

  private final List<Receipt> receipts = new CopyOnWriteArrayList<>();
  private final List<Outcome> outcomes = new CopyOnWriteArrayList<>();
  private final List<IncomingMessage> incoming = new CopyOnWriteArrayList<>();
  private final List<Connection> connections = new CopyOnWriteArrayList<>();
  private final List<State> states = new CopyOnWriteArrayList<>();
  private final List<Hold> holds = new CopyOnWriteArrayList<>();
  private final List<Note> notes = new CopyOnWriteArrayList<>();
  private final AtomicInteger refusals = new AtomicInteger();
  private final AtomicInteger refused = new AtomicInteger();

  @Override
  public void receipt(Receipt receipt) {
    receipts.add(receipt);
  }

  @Override
  public void outcome(long deviceId, long messageId, SendOutcome outcome) {
    outcomes.add(new Outcome(deviceId, messageId, outcome));
  }

  /** Keeps the message, or throws (not stored) while refusals are pending. */
  @Override
  public void incoming(IncomingMessage message) {
    if (refusals.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      refused.incrementAndGet();
      throw new IllegalStateException("not stored (the contract suite refused it)");
    }
    incoming.add(message);
  }

  @Override
  public void connectionChanged(long deviceId, boolean connected) {
    connections.add(new Connection(deviceId, connected));
  }

  @Override
  public void stateChanged(long deviceId, DeviceState state, String reason) {
    states.add(new State(deviceId, state, reason));
  }

  /**
   * Kept, and also recorded as the core shows a held device: {@link DeviceState#FAILED} with the
   * reason, not connected. So a case that waits for a device reported failed sees a hold too.
   */
  @Override
  public void hold(long deviceId, String reason) {
    holds.add(new Hold(deviceId, reason));
    states.add(new State(deviceId, DeviceState.FAILED, reason));
    connections.add(new Connection(deviceId, false));
  }

  @Override
  public void note(long deviceId, long messageId, String note) {
    notes.add(new Note(deviceId, messageId, note));
  }

  /** The holds of a device, oldest first. */
  public List<Hold> holds(long deviceId) {
    return holds.stream().filter(h -> h.deviceId() == deviceId).toList();
  }

  /** The notes of a message, oldest first. */
  public List<Note> notes(long deviceId, long messageId) {
    return notes.stream()
        .filter(n -> n.deviceId() == deviceId && n.messageId() == messageId)
        .toList();
  }

  /** The next {@code n} incoming messages are not stored: {@link #incoming} throws. */
  public void refuseIncoming(int n) {
    refusals.set(n);
  }

  /** How many incoming messages were refused so far. */
  public int refusedIncoming() {
    return refused.get();
  }

  public List<Receipt> receipts(long deviceId) {
    return receipts.stream().filter(r -> r.deviceId() == deviceId).toList();
  }

  public List<Receipt> receiptsOf(long deviceId, String networkId) {
    return receipts.stream()
        .filter(r -> r.deviceId() == deviceId && r.networkId().equals(Optional.of(networkId)))
        .toList();
  }

  public List<Outcome> outcomes(long deviceId, long messageId) {
    return outcomes.stream()
        .filter(o -> o.deviceId() == deviceId && o.messageId() == messageId)
        .toList();
  }

  public List<IncomingMessage> incoming(long deviceId) {
    return incoming.stream().filter(m -> m.deviceId() == deviceId).toList();
  }

  public List<IncomingMessage> incoming(long deviceId, String networkId) {
    return incoming.stream()
        .filter(m -> m.deviceId() == deviceId && m.networkId().equals(Optional.of(networkId)))
        .toList();
  }

  /** Connection changes of a device, oldest first. */
  public List<Connection> connections(long deviceId) {
    return connections.stream().filter(c -> c.deviceId() == deviceId).toList();
  }

  /** State changes of a device, oldest first. */
  public List<State> states(long deviceId) {
    return states.stream().filter(s -> s.deviceId() == deviceId).toList();
  }
}
