package io.kurir.message;

import io.kurir.driver.DriverListener;
import io.kurir.driver.Drivers;
import io.kurir.driver.NumberCheck;
import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.tenant.Device;
import io.kurir.tenant.Tenants;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The message pipeline: accepting messages durably, handing them to each device's {@link
 * DeviceSender}, waiting for outcomes on behalf of sync callers, and recording what drivers report
 * afterwards. A sync send is an async send whose caller waits (bounded) for the first outcome.
 *
 * <p>Thread-safe.
 */
public final class Messages implements DriverListener, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Messages.class);

  /**
   * Extra wait for a send the driver already has, after the sync timeout ran out, so long as the
   * caller's total stays under 14 s (clients give up at 15 s).
   */
  private static final Duration IN_FLIGHT_GRACE = Duration.ofSeconds(3);

  private static final Duration CALLER_PATIENCE = Duration.ofSeconds(14);

  private final MessageStore store;
  private final IdGenerator ids;
  private final Clock clock;
  private final Drivers drivers;
  private final Tenants tenants;
  private final Pacing pacing;
  private final RetryPolicy retries;
  private final Outcomes outcomes = new Outcomes();
  private final Map<Long, DeviceSender> senders = new ConcurrentHashMap<>();
  private volatile boolean closed;

  public Messages(
      Database db,
      IdGenerator ids,
      Clock clock,
      Drivers drivers,
      Tenants tenants,
      Pacing pacing,
      RetryPolicy retries) {
    this.store = new MessageStore(db);
    this.ids = ids;
    this.clock = clock;
    this.drivers = drivers;
    this.tenants = tenants;
    this.pacing = pacing;
    this.retries = retries;
    ids.continueAfter(store.maxId());
    io.kurir.time.Wakeable.wakeOnClockChange(
        clock, () -> senders.values().forEach(DeviceSender::wake));
  }

  /** Picks up every message accepted before the last stop and not sent yet. */
  public void resumePending() {
    List<Message> pending = store.pending();
    for (Message m : pending) {
      senderOf(m.deviceId()).ifPresent(s -> s.enqueue(m));
    }
    if (!pending.isEmpty()) {
      log.info("resumed {} pending messages", pending.size());
    }
  }

  /**
   * Stores one message per recipient in one commit and queues them; returns them in recipient order
   * once committed. Nothing is queued unless everything was stored.
   */
  public List<Message> accept(Device device, SendRequest request) {
    if (closed) {
      throw new IllegalStateException("the gateway is stopping");
    }
    Instant now = clock.instant();
    Instant notBefore = now.plus(request.delay());
    List<Message> messages = new ArrayList<>(request.recipients().size());
    for (Recipient r : request.recipients()) {
      messages.add(
          new Message(
              ids.next(),
              device.id(),
              r.address(),
              r.group(),
              request.kind(),
              request.body(),
              request.api(),
              request.sync(),
              request.retry(),
              0,
              MessageState.PENDING,
              Optional.empty(),
              notBefore,
              now,
              Optional.empty(),
              now));
    }
    store.insert(messages).join();
    DeviceSender sender = senderFor(device);
    for (Message m : messages) {
      if (m.sync()) {
        outcomes.expect(m.id()); // before the sender can report it
      }
      sender.enqueue(m);
    }
    return messages;
  }

  /**
   * Waits until {@code deadline} for the first outcome of a sync message. When time runs out before
   * the driver got the message, the message is withdrawn and recorded as failed, so the caller who
   * is told it failed never sees it sent later; a {@code flag_retry=on} message stays queued
   * instead. When the driver already has it, the wait is extended a little (the send is under way)
   * and otherwise answered as a timeout while the send completes on its own.
   *
   * @param callerStarted when the caller's request arrived, bounding the total wait
   */
  public SendResult awaitFirstOutcome(Message message, Instant deadline, Instant callerStarted) {
    try {
      return awaitOutcome(message, deadline, callerStarted);
    } finally {
      outcomes.forget(message.id());
    }
  }

  private SendResult awaitOutcome(Message message, Instant deadline, Instant callerStarted) {
    CompletableFuture<SendResult> outcome = outcomes.of(message.id());
    try {
      return outcome.get(millisUntil(deadline), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      if (message.retry()) {
        return SendResult.TIMEOUT; // flag_retry: it stays queued
      }
      DeviceSender sender = senders.get(message.deviceId());
      if (sender != null && sender.withdraw(message.id())) {
        store.moveTo(
            message.id(), MessageState.FAILED, clock.instant(), FailureReason.TIMEOUT, false);
        return SendResult.TIMEOUT;
      }
      Instant graceEnd = Instant.now().plus(IN_FLIGHT_GRACE);
      Instant patienceEnd = callerStarted.plus(CALLER_PATIENCE);
      try {
        return outcome.get(
            millisUntil(graceEnd.isBefore(patienceEnd) ? graceEnd : patienceEnd),
            TimeUnit.MILLISECONDS);
      } catch (TimeoutException | ExecutionException stillNothing) {
        return SendResult.TIMEOUT;
      } catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
        return SendResult.TIMEOUT;
      }
    } catch (ExecutionException e) {
      return SendResult.FAILED;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return SendResult.TIMEOUT;
    }
  }

  private long millisUntil(Instant deadline) {
    // Deadlines of sync calls are in real time: the caller's HTTP client does not read our clock.
    return Math.max(1, Duration.between(Instant.now(), deadline).toMillis());
  }

  /** The message with this id if it belongs to {@code device}. */
  public Optional<Message> find(Device device, long id) {
    return store.find(id).filter(m -> m.deviceId() == device.id());
  }

  public NumberCheck checkNumber(Device device, String e164) {
    return drivers.of(device).checkNumber(device, e164);
  }

  /** Messages waiting in a device's queue (in memory), for tests and operators. */
  public int queued(long deviceId) {
    DeviceSender s = senders.get(deviceId);
    return s == null ? 0 : s.queued();
  }

  private DeviceSender senderFor(Device device) {
    return senders.computeIfAbsent(
        device.id(),
        id -> {
          DeviceSender s =
              new DeviceSender(device, drivers.of(device), store, outcomes, clock, pacing, retries);
          s.start();
          return s;
        });
  }

  private Optional<DeviceSender> senderOf(long deviceId) {
    DeviceSender existing = senders.get(deviceId);
    if (existing != null) {
      return Optional.of(existing);
    }
    try {
      return Optional.of(senderFor(tenants.device(deviceId)));
    } catch (RuntimeException e) {
      log.error("cannot start the sender of device {}: {}", deviceId, e.toString());
      return Optional.empty();
    }
  }

  // --- what drivers report

  @Override
  public void receipt(long messageId, Receipt receipt, Instant at) {
    MessageState state = receipt == Receipt.DELIVERED ? MessageState.DELIVERY : MessageState.READ;
    // Not waited for: the driver's receipt thread must not stall on a commit per receipt.
    store.moveLater(messageId, state, at, null, false);
  }

  @Override
  public void incoming(long deviceId, String senderE164, String text, Instant at) {
    store.insertIncoming(ids.next(), deviceId, senderE164, text, at);
  }

  @Override
  public void connectionChanged(long deviceId, boolean connected) {
    DeviceSender s = senders.get(deviceId);
    if (s != null) {
      s.wake();
    }
  }

  /** Stops every sender after its send in progress; queued messages stay stored as pending. */
  @Override
  public void close() {
    closed = true;
    senders.values().forEach(DeviceSender::stop);
  }
}
