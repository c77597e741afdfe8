package io.kurir.device;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.tenant.DeviceStore;
import io.kurir.time.Timestamps;
import io.kurir.webhook.Events;
import io.kurir.webhook.WebhookOutbox;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The state of every device and the history of its changes. A change is stored with its time and
 * reason in the same transaction as the new state; a report of the state a device is already in
 * changes nothing, unless it is a step the operator must see ({@link #recordLater(long,
 * DeviceState, String, boolean)}).
 *
 * <p>Thread-safe.
 */
public final class DeviceStates {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Database db;
  private final DeviceStore devices;
  private final DeviceStateStore store;
  private final Clock clock;
  private final IdGenerator ids;
  private final Timestamps timestamps;
  private final Runnable webhookAdded;
  private final Events events;

  /**
   * @param webhookAdded told after a commit that stored a device-status webhook delivery
   * @param events the event log: each change is its {@code device.status} event too
   */
  public DeviceStates(
      Database db,
      Clock clock,
      IdGenerator ids,
      Timestamps timestamps,
      Runnable webhookAdded,
      Events events) {
    this.db = db;
    this.devices = new DeviceStore(db);
    this.store = new DeviceStateStore(db);
    this.clock = clock;
    this.ids = ids;
    this.timestamps = timestamps;
    this.webhookAdded = webhookAdded;
    this.events = events;
  }

  /** The device's status webhook URL, if one is registered. */
  public Optional<String> statusWebhook(long deviceId) {
    return devices.statusWebhookUrl(deviceId);
  }

  /**
   * Registers (or, with null, removes) the device's status webhook URL; events still waiting for
   * the old URL go to the new one, or end as failed when it is removed.
   */
  public void setStatusWebhook(long deviceId, String url) {
    db.writes()
        .writeIn(
            tx -> {
              DeviceStore.setWebhookUrl(
                  tx, deviceId, DeviceStore.WebhookUrl.STATUS, Optional.ofNullable(url));
              WebhookOutbox.retarget(
                  tx, deviceId, "device.status", Optional.ofNullable(url), clock.instant());
              return null;
            });
    webhookAdded.run();
  }

  /**
   * Moves a device to {@code next}; the change, if any, once committed. When the device has a
   * status webhook, the event for it is stored in the same transaction (the outbox delivers it).
   */
  public Optional<DeviceEvent> record(long deviceId, DeviceState next, String reason) {
    return recordLater(deviceId, next, reason).join();
  }

  /**
   * {@link #record} without waiting: the future completes after the commit. What drivers report
   * goes this way, so that a driver's thread never waits for a commit.
   */
  public java.util.concurrent.CompletableFuture<Optional<DeviceEvent>> recordLater(
      long deviceId, DeviceState next, String reason) {
    return recordLater(deviceId, next, reason, false);
  }

  /**
   * {@link #recordLater}, and when {@code evenIfSame}, recorded (with its status webhook) also when
   * the device is in {@code next} already: a step the operator must see (a driver restarting a
   * failed session, a passkey asked for), told by its reason.
   */
  public java.util.concurrent.CompletableFuture<Optional<DeviceEvent>> recordLater(
      long deviceId, DeviceState next, String reason, boolean evenIfSame) {
    Instant at = clock.instant();
    boolean[] webhook = {false};
    return db.writes()
        .submitIn(
            tx -> {
              Optional<DeviceStore.StateRow> row = DeviceStore.stateRow(tx, deviceId);
              if (row.isEmpty() || (!evenIfSame && next.wireName().equals(row.get().state()))) {
                return Optional.<DeviceEvent>empty();
              }
              if (next != DeviceState.FAILED && DeviceStateStore.held(tx, deviceId)) {
                // A held device stays failed with its reason until resumed (QueueHolds releases
                // the hold before recording the state it resumes in): a driver reporting it
                // online as it attaches after a restart or a lease handover changes nothing.
                return Optional.<DeviceEvent>empty();
              }
              String old = row.get().state();
              DeviceStore.setState(tx, deviceId, next.wireName());
              DeviceStateStore.addEvent(tx, deviceId, old, next.wireName(), reason, at);
              Map<String, Object> data = new LinkedHashMap<>();
              data.put("old_state", old);
              data.put("new_state", next.wireName());
              data.put("reason", reason);
              events.append(tx, deviceId, Events.DEVICE_STATUS, data, at);
              Optional<String> url = row.get().statusWebhookUrl();
              if (url.isPresent()) {
                // Taken in the writer, like message events' ids: by id, events to one URL
                // are in the order of their commits.
                long eventId = ids.next();
                String number = row.get().number();
                WebhookOutbox.add(
                    tx,
                    eventId,
                    deviceId,
                    url.get(),
                    "device.status",
                    payload(eventId, deviceId, number, old, next.wireName(), reason, Map.of(), at),
                    at);
                webhook[0] = true;
              }
              return Optional.of(
                  new DeviceEvent(
                      deviceId,
                      DeviceState.ofWireName(old),
                      next,
                      Optional.ofNullable(reason),
                      at));
            })
        .thenApply(
            change -> {
              if (webhook[0]) {
                webhookAdded.run();
              }
              if (change.isPresent()) {
                events.committed();
              }
              return change;
            });
  }

  /**
   * Tells the device's status webhook, in the caller's transaction, of something that concerns the
   * device though its state does not change (a campaign stopped for a signal of it): a {@code
   * device.status} delivery whose old and new state are both its current one, with {@code extra}'s
   * fields after the usual ones (docs/webhooks.md), so that receivers of the seed's payload read it
   * as they read a step. Not a change of the device's history. True when a delivery was stored: the
   * outbox must then be woken after the commit ({@code Events.committed()} does).
   */
  public boolean tellStatusWebhook(
      io.kurir.store.Transaction tx,
      long deviceId,
      String reason,
      Map<String, Object> extra,
      Instant at) {
    Optional<DeviceStore.StateRow> row = DeviceStore.stateRow(tx, deviceId);
    if (row.isEmpty() || row.get().statusWebhookUrl().isEmpty()) {
      return false;
    }
    long eventId = ids.next();
    String state = row.get().state();
    WebhookOutbox.add(
        tx,
        eventId,
        deviceId,
        row.get().statusWebhookUrl().get(),
        "device.status",
        payload(eventId, deviceId, row.get().number(), state, state, reason, extra, at),
        at);
    return true;
  }

  /** The device-status webhook's JSON; see docs/webhooks.md. */
  private String payload(
      long eventId,
      long deviceId,
      String number,
      String oldState,
      String newState,
      String reason,
      Map<String, Object> extra,
      Instant at) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("event", "device.status");
    body.put("eventId", Long.toString(eventId));
    body.put("device", Long.toString(deviceId));
    body.put("number", number.startsWith("+") ? number.substring(1) : number);
    body.put("oldState", oldState);
    body.put("newState", newState);
    body.put("reason", reason);
    body.put("time", timestamps.reply(at));
    body.putAll(extra);
    try {
      return JSON.writeValueAsString(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  public DeviceState current(long deviceId) {
    return devices.state(deviceId).map(DeviceState::ofWireName).orElse(DeviceState.NONE);
  }

  /**
   * Which of {@code deviceIds} are linked (paired with an account), in one read: recorded {@code
   * online} or {@code offline}, or {@code port_down} after being one of those. An engine that
   * cannot be reached keeps its sessions, so a device linked before its engine went away is still
   * linked; its state before {@code port_down} is the {@code old_state} of the newest change to
   * {@code port_down}.
   */
  public java.util.Set<Long> linked(java.util.Collection<Long> deviceIds) {
    if (deviceIds.isEmpty()) {
      return java.util.Set.of();
    }
    return store.linked(deviceIds);
  }

  /** The stored state of every device, in one read. */
  public Map<Long, DeviceState> all() {
    Map<Long, DeviceState> all = new HashMap<>();
    devices.states().forEach((id, state) -> all.put(id, DeviceState.ofWireName(state)));
    return all;
  }

  /**
   * Whether the device's recorded state is {@code failed} because its sender keeps failing ({@link
   * SenderTroubleAsState}): the last change says so.
   */
  public boolean senderStuck(long deviceId) {
    return store
        .lastEvent(deviceId)
        .map(
            last ->
                DeviceState.FAILED.wireName().equals(last.get(0))
                    && last.get(1) != null
                    && last.get(1).startsWith(SenderTroubleAsState.STUCK))
        .orElse(false);
  }

  /** The reason of the device's last recorded state change or step, if any. */
  public Optional<String> lastReason(long deviceId) {
    List<DeviceEvent> all = history(deviceId);
    return all.isEmpty() ? Optional.empty() : all.getLast().reason();
  }

  /** Every change of the device's state, oldest first. */
  public List<DeviceEvent> history(long deviceId) {
    return store.history(deviceId);
  }
}
