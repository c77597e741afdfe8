package io.kurir.campaign;

import io.kurir.device.AccountSignals;
import io.kurir.device.DeviceHolds;
import io.kurir.device.DeviceState;
import io.kurir.device.DeviceStates;
import io.kurir.message.FailureReason;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The signals that a number is being banned, read for a running campaign on each device of its pool
 * (docs/decisions.md, "Safe sending: automatic stop"), and what each calls for:
 *
 * <ul>
 *   <li>the whole campaign stops ({@link #stopFor}) on a <b>failure surge</b> (at least {@link
 *       #SURGE_FAILURES} failures among the campaign's last {@link #SURGE_WINDOW} settled messages
 *       on one device), an <b>account error</b> (the network refused the device's account: its
 *       queue is held), or WhatsApp's <b>message capping</b> ({@code CAPPED}) or <b>reach-out time
 *       lock </b> (error 463) reported by the engine;
 *   <li>only the device leaves the pool ({@link #leavesPool}) when it is logged out, taken over by
 *       another session, or failed for its engine or sender: it cannot send, and the others can.
 * </ul>
 *
 * Only what happened since the campaign last started or resumed counts, so that an operator who
 * resumes after reading the reason is not stopped again by the same old signal. A number the
 * network says is not on WhatsApp is the recipient's failure, not the sender's: it never counts
 * toward a surge (a bad list is not a ban signal).
 *
 * <p>Thread-safe.
 */
final class BanSignals {
  /** How many of a device's latest settled campaign messages the surge looks at. */
  static final int SURGE_WINDOW = 10;

  /** How many failures among them make a surge. */
  static final int SURGE_FAILURES = 5;

  /** The campaign's {@code stop_reason} for each signal that stops it. */
  static final String FAILURE_SURGE = "failure_surge";

  static final String ACCOUNT_ERROR = "account_error";

  /**
   * Failures that say nothing of the sending account: the recipient is not on WhatsApp, the message
   * was taken back by a pause, a cancel or a stop, its send was cut off by the gateway's own stop,
   * or its device deleted.
   */
  private static final List<String> NOT_THE_SENDERS =
      List.of(
          FailureReason.NUMBER_NOT_FOUND,
          FailureReason.CANCELLED,
          FailureReason.DEVICE_DELETED,
          FailureReason.INTERRUPTED,
          "campaign_paused",
          "campaign_cancelled",
          CampaignStops.TAKEN_BACK);

  /** Why a campaign stops: its {@code stop_reason}, the device whose signal it is, and words. */
  record Stop(String reason, long deviceId, String detail) {}

  private final CampaignStore store;
  private final DeviceStates states;
  private final DeviceHolds holds;
  private final AccountSignals accounts;

  BanSignals(CampaignStore store, DeviceStates states, DeviceHolds holds, AccountSignals accounts) {
    this.store = store;
    this.states = states;
    this.holds = holds;
    this.accounts = accounts;
  }

  /**
   * The signal that stops campaign {@code c}, running since {@code since}, if one of the devices it
   * has sent from since then gave one.
   */
  Optional<Stop> stopFor(Campaign c, List<Long> deviceIds, Instant since) {
    for (long deviceId : deviceIds) {
      if (!store.handedSince(c.id(), deviceId, since)) {
        continue; // not sending this campaign: its trouble is not the campaign's
      }
      Optional<Instant> held = holds.heldSince(deviceId);
      if (held.isPresent() && !held.get().isBefore(since)) {
        return Optional.of(
            new Stop(ACCOUNT_ERROR, deviceId, holds.reason(deviceId).orElse("account refused")));
      }
      Optional<AccountSignals.Signal> limit = accounts.since(deviceId, since);
      if (limit.isPresent()) {
        return Optional.of(new Stop(limit.get().kind(), deviceId, limit.get().reason()));
      }
      List<CampaignStore.Settled> latest =
          store.latestSettled(c.id(), deviceId, since, SURGE_WINDOW);
      long failed =
          latest.stream()
              .filter(m -> m.state().equals("failed"))
              .filter(m -> m.reason().filter(NOT_THE_SENDERS::contains).isEmpty())
              .count();
      if (failed >= SURGE_FAILURES) {
        return Optional.of(
            new Stop(
                FAILURE_SURGE,
                deviceId,
                failed
                    + " of the campaign's last "
                    + latest.size()
                    + " settled messages on the device failed"));
      }
    }
    return Optional.empty();
  }

  /**
   * Whether the device leaves the campaign's pool: logged out ({@code none}), taken over by another
   * session ({@code refresh_it}) or {@code failed}. Offline phones and unreachable engines stay:
   * they come back by themselves, their window of messages waiting for them.
   */
  boolean leavesPool(long deviceId) {
    DeviceState s = states.current(deviceId);
    return s == DeviceState.NONE || s == DeviceState.REFRESH_IT || s == DeviceState.FAILED;
  }
}
