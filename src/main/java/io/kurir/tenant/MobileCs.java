package io.kurir.tenant;

import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Mobile CS entries: customer-service handsets of a license, each tied to one of its devices and
 * known to the push families by its push player id and its handset id. Operators manage them (Admin
 * API); the Account API lists them.
 *
 * <p>Thread-safe.
 */
public final class MobileCs {
  /** One entry. */
  public record Entry(
      long id,
      long licenseId,
      long deviceId,
      String name,
      String playerId,
      String handsetId,
      Instant createdAt) {}

  private final MobileCsStore store;
  private final IdGenerator ids;
  private final Clock clock;
  private final Tenants tenants;

  public MobileCs(Database db, IdGenerator ids, Clock clock, Tenants tenants) {
    this.store = new MobileCsStore(db);
    this.ids = ids;
    this.clock = clock;
    this.tenants = tenants;
  }

  /** Adds an entry for {@code deviceId}, which must belong to the license. */
  public Entry add(long licenseId, long deviceId, String name, String playerId, String handsetId) {
    Device device = tenants.device(deviceId);
    tenants.license(licenseId);
    if (device.licenseId() != licenseId) {
      throw new TenantException(
          TenantException.Reason.INVALID, "device " + deviceId + " is not of license " + licenseId);
    }
    if (name.isBlank() || playerId.isBlank() || handsetId.isBlank()) {
      throw new TenantException(
          TenantException.Reason.INVALID, "name, playerId and handsetId are required");
    }
    Entry e =
        new Entry(
            ids.next(),
            licenseId,
            deviceId,
            name.strip(),
            playerId.strip(),
            handsetId.strip(),
            clock.instant());
    store.insert(e);
    return e;
  }

  /** A license's entries, oldest first. */
  public List<Entry> of(long licenseId) {
    return store.ofLicense(licenseId);
  }

  public Optional<Entry> find(long id) {
    return store.find(id);
  }

  /**
   * The device (switched on) a push call's target id names within the license: the device of the
   * mobile CS entry with that player id or handset id, or the license's device with that (Kurir)
   * device id.
   */
  public Optional<Device> deviceForTarget(License license, String target) {
    String id = target.strip();
    Optional<Long> deviceId = store.deviceOfTarget(license.id(), id);
    if (deviceId.isEmpty() && id.matches("\\d{1,18}")) {
      deviceId = Optional.of(Long.parseLong(id));
    }
    // A switched-off device names nothing: push callers cannot bypass the operator.
    return deviceId.flatMap(
        d ->
            tenants.devicesOf(license).stream()
                .filter(x -> x.id() == d && !x.disabled())
                .findFirst());
  }

  /** Removes an entry; false when there was none. */
  public boolean remove(long id) {
    return store.remove(id);
  }
}
