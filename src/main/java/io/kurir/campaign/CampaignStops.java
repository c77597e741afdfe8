package io.kurir.campaign;

import io.kurir.device.AccountSignals;
import io.kurir.device.DeviceHolds;
import io.kurir.device.DeviceStates;
import io.kurir.message.Messages;
import io.kurir.store.Database;
import io.kurir.tenant.Device;
import io.kurir.webhook.Events;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Safe sending's automatic stop: what the campaign runner asks on each look at a running campaign.
 * A ban signal that concerns the whole campaign ({@link BanSignals#stopFor}) pauses it with its
 * {@code stop_reason}, takes back its messages still queued, and tells the operator in the same
 * commit: the {@code campaign.stopped} event on the event log (v1 subscriptions, {@code GET
 * /v1/events}) and the device-status webhook of the device whose signal it is (a {@code
 * device.status} payload with a {@code campaign} object added). A device that can no longer send
 * leaves the campaign's pool ({@link #usable}): its queued messages are taken back for the others.
 *
 * <p>Used by the campaign runner's one thread.
 */
public final class CampaignStops {
  private static final Logger log = LoggerFactory.getLogger(CampaignStops.class);

  /** The failure reason of a queued message taken back by an automatic stop or a device leaving. */
  static final String TAKEN_BACK = "campaign_stopped";

  private final Database db;
  private final CampaignStore store;
  private final Messages messages;
  private final DeviceStates states;
  private final Events events;
  private final Clock clock;
  private final BanSignals signals;

  /** By campaign, the devices seen leaving its pool (told once, their queue taken back once). */
  private final Map<Long, Set<Long>> left = new HashMap<>();

  public CampaignStops(
      Database db,
      Messages messages,
      DeviceStates states,
      DeviceHolds holds,
      AccountSignals accounts,
      Events events,
      Clock clock) {
    this.db = db;
    this.store = new CampaignStore(db);
    this.messages = messages;
    this.states = states;
    this.events = events;
    this.clock = clock;
    this.signals = new BanSignals(store, states, holds, accounts);
  }

  /**
   * Stops the running campaign if a device of its pool ({@code deviceIds}: named, or every device
   * of its license) gave a ban signal since it last started or resumed; true when it is stopped.
   */
  boolean stoppedBySignal(Campaign c, List<Long> deviceIds) {
    Optional<BanSignals.Stop> stop = signals.stopFor(c, deviceIds, c.updatedAt());
    if (stop.isEmpty()) {
      return false;
    }
    stop(c, stop.get());
    return true;
  }

  /**
   * The devices of {@code pool} that may go on sending the campaign: all but those {@code leaving}
   * it (logged out, taken over, failed, as {@link #leaving} read them). One that leaves has the
   * campaign's messages still queued for it taken back, so that the others send them.
   */
  List<Device> usable(Campaign c, List<Device> pool, Set<Long> leaving) {
    Set<Long> gone = left.computeIfAbsent(c.id(), id -> new HashSet<>());
    List<Device> usable = new java.util.ArrayList<>(pool.size());
    for (Device d : pool) {
      if (!leaving.contains(d.id())) {
        gone.remove(d.id());
        usable.add(d);
        continue;
      }
      if (gone.add(d.id())) {
        log.warn(
            "campaign {}: device {} left its pool: it is {} ({}); the other devices send",
            c.id(),
            d.id(),
            states.current(d.id()).wireName(),
            states.lastReason(d.id()).orElse("no reason given"));
      }
    }
    if (!leaving.isEmpty()) {
      // Taken back while any wait in its queue: one its sender had claimed when the device left
      // comes back to the queue a moment later, and is taken back then.
      Map<Long, Integer> inFlight = store.inFlight(c.id());
      if (leaving.stream().anyMatch(id -> inFlight.getOrDefault(id, 0) > 0)) {
        Campaigns.takeBack(
            store,
            messages,
            clock,
            c.id(),
            q -> leaving.contains(q.deviceId()),
            "waiting",
            TAKEN_BACK);
      }
    }
    return usable;
  }

  /**
   * The devices of {@code pool} that leave it, read in one look at their states: the same look
   * decides both whether a signal must be read again and who leaves.
   */
  Set<Long> leaving(List<Device> pool) {
    Set<Long> leaving = new HashSet<>();
    for (Device d : pool) {
      if (signals.leavesPool(d.id())) {
        leaving.add(d.id());
      }
    }
    return leaving;
  }

  /** Forgets what was seen of a campaign that stopped running. */
  void forget(long campaignId) {
    left.remove(campaignId);
  }

  private void stop(Campaign c, BanSignals.Stop s) {
    Instant at = clock.instant();
    String sentence =
        "campaign " + c.id() + " (" + c.name() + ") stopped: " + s.reason() + ": " + s.detail();
    boolean stopped =
        db.writes()
            .writeIn(
                tx -> {
                  if (!CampaignStore.stop(tx, c.id(), s.reason(), at)) {
                    return false;
                  }
                  Map<String, Object> data = new LinkedHashMap<>();
                  data.put("campaign_id", Long.toString(c.id()));
                  data.put("name", c.name());
                  data.put("status", CampaignStatus.PAUSED.wireName());
                  data.put("stop_reason", s.reason());
                  data.put("detail", s.detail());
                  events.append(tx, s.deviceId(), Events.CAMPAIGN_STOPPED, data, at);
                  Map<String, Object> campaign = new LinkedHashMap<>();
                  campaign.put("id", Long.toString(c.id()));
                  campaign.put("name", c.name());
                  campaign.put("status", CampaignStatus.PAUSED.wireName());
                  campaign.put("stopReason", s.reason());
                  states.tellStatusWebhook(
                      tx, s.deviceId(), sentence, Map.of("campaign", campaign), at);
                  return true;
                });
    if (!stopped) {
      return; // paused or cancelled meanwhile: nothing to stop
    }
    events.committed(); // wakes the outbox for the status webhook too
    forget(c.id());
    log.warn("{}; resume it once the device is fixed (docs/campaigns.md)", sentence);
    Campaigns.takeBack(store, messages, clock, c.id(), q -> true, "waiting", TAKEN_BACK);
  }
}
