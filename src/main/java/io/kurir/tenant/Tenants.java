package io.kurir.tenant;

import io.kurir.phone.PhoneNumbers;
import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.tenant.TenantException.Reason;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Partners, licenses and devices: creating them, switching them off and on, rotating their
 * credentials, and deciding whether a credential presented by a caller may be used today.
 *
 * <p>Thread-safe.
 */
public final class Tenants {
  public static final int KEY_LENGTH = 32;

  /** How soon a change made by another process (./kurir admin, another node) takes effect. */
  public static final Duration ACCESS_CACHE_TTL = Duration.ofSeconds(5);

  private static final Pattern EXPLICIT_SECRET = Pattern.compile("[A-Za-z0-9._-]{8,128}");

  /** Device credentials that can be rotated, by the names the Admin API and CLI use. */
  public enum Credential {
    KEY("eco_key"),
    DEVICE_KEY("device_key"),
    CRM_ID("crm_device_id");

    private final String column;

    Credential(String column) {
      this.column = column;
    }

    public static Credential parse(String name) {
      return switch (name.toLowerCase(Locale.ROOT)) {
        case "key", "eco-key" -> KEY;
        case "device-key" -> DEVICE_KEY;
        case "crm-id", "device-id", "deviceid" -> CRM_ID;
        default ->
            throw new TenantException(
                Reason.INVALID, "credential must be key, device-key or crm-id, not '" + name + "'");
      };
    }
  }

  private final TenantStore store;
  private final DeviceStore devices;
  private final IdGenerator ids;
  private final Clock clock;
  private final ZoneId zone;
  private final PhoneNumbers phones;
  private final DeviceDrivers drivers;
  private final AccessCache<AccessCache.Access> ecoKeys = new AccessCache<>(ACCESS_CACHE_TTL);
  // By device id and by license id, for the Kurir API's sends (a device named by the caller, a
  // license's devices): kept and cleared like the keys.
  private final AccessCache<AccessCache.Access> byDeviceId = new AccessCache<>(ACCESS_CACHE_TTL);
  private final AccessCache<List<Device>> licenseDevices = new AccessCache<>(ACCESS_CACHE_TTL);
  private final ApiKeys apiKeys;

  public Tenants(
      Database db,
      IdGenerator ids,
      Clock clock,
      ZoneId zone,
      PhoneNumbers phones,
      DeviceDrivers drivers) {
    this.store = new TenantStore(db);
    this.devices = new DeviceStore(db);
    this.ids = ids;
    this.clock = clock;
    this.zone = zone;
    this.phones = phones;
    this.drivers = drivers;
    this.apiKeys = new ApiKeys(db, ids, clock, this);
    ids.continueAfter(store.maxId());
  }

  /** The licenses' API keys for Kurir's own API, and who a bearer token is. */
  /** After any change to a device, license or partner: credentials are read again. */
  private void forgetAccess() {
    ecoKeys.clear();
    byDeviceId.clear();
    licenseDevices.clear();
    apiKeys.forgetAccess();
  }

  public ApiKeys apiKeys() {
    return apiKeys;
  }

  // --- partners

  public Partner createPartner(String name, String email) {
    return createPartner(name, email, null, null);
  }

  /** Creates a partner; {@code basicUser}/{@code basicSecret} are generated when null. */
  public Partner createPartner(String name, String email, String basicUser, String basicSecret) {
    requireText("name", name);
    long id = ids.next();
    String user = basicUser != null ? basicUser : "partner-" + id;
    String secret =
        basicSecret != null ? requireSecret("secret", basicSecret) : Secrets.random(KEY_LENGTH);
    if (store.partnerByBasicUser(user).isPresent()) {
      throw new TenantException(Reason.CONFLICT, "a partner with user '" + user + "' exists");
    }
    Partner partner =
        new Partner(id, name.strip(), emailOf(email), user, secret, false, clock.instant());
    store.insert(partner);
    forgetAccess();
    return partner;
  }

  public List<Partner> partners() {
    return store.partners();
  }

  public Partner partner(long id) {
    return store
        .partner(id)
        .orElseThrow(() -> new TenantException(Reason.NOT_FOUND, "no partner " + id));
  }

  /**
   * Gives a license a new push key; the old one stops working at once (it may have leaked). The
   * license answered carries the new key, the only time it is readable: it is stored as its hash.
   */
  public License rotatePushKey(long id) {
    license(id);
    String key = Secrets.random(KEY_LENGTH);
    store.setPushKey(id, key);
    License l = license(id);
    return new License(
        l.id(),
        l.partnerId(),
        l.code(),
        l.name(),
        l.email(),
        l.expiresOn(),
        l.allowedAddresses(),
        l.disabled(),
        l.createdAt(),
        l.webhookSecret(),
        key);
  }

  /**
   * Gives a license a new code (its customer's Account API and push v1 credential, and console
   * sign-in); the old one stops working at once. The license answered carries the new code, the
   * only time it is readable: it is stored as its hash, so a lost code can only be replaced.
   */
  public License rotateLicenseCode(long id) {
    license(id);
    String code = Secrets.random(24);
    store.setLicenseCode(id, code);
    forgetAccess();
    License l = license(id);
    return new License(
        l.id(),
        l.partnerId(),
        code,
        l.name(),
        l.email(),
        l.expiresOn(),
        l.allowedAddresses(),
        l.disabled(),
        l.createdAt(),
        l.webhookSecret(),
        l.pushKey());
  }

  /** A new Basic secret; the partner answered carries it, the only time it is readable. */
  public Partner rotatePartnerSecret(long id) {
    partner(id);
    String secret = Secrets.random(KEY_LENGTH);
    store.setPartnerSecret(id, secret);
    forgetAccess();
    Partner p = partner(id);
    return new Partner(
        p.id(), p.name(), p.email(), p.basicUser(), secret, p.disabled(), p.createdAt());
  }

  // --- licenses

  /**
   * Gives a license a new webhook secret. The old one keeps signing deliveries beside the new one
   * until {@code overlap} has passed, so receivers can switch without losing events.
   */
  public License rotateWebhookSecret(long licenseId, Duration overlap) {
    License license = license(licenseId);
    store.rotateWebhookSecret(
        licenseId,
        Secrets.random(KEY_LENGTH),
        license.webhookSecret(),
        clock.instant().plus(overlap));
    return license(licenseId);
  }

  public License createLicense(
      long partnerId, String name, String email, LocalDate expiresOn, List<String> allowed) {
    return createLicense(partnerId, name, email, expiresOn, allowed, null);
  }

  /** Creates a license of a partner; {@code code} is generated when null. */
  public License createLicense(
      long partnerId,
      String name,
      String email,
      LocalDate expiresOn,
      List<String> allowed,
      String code) {
    partner(partnerId);
    requireText("name", name);
    String licenseCode = code != null ? requireSecret("code", code) : Secrets.random(24);
    if (store.licenseByCode(licenseCode).isPresent()) {
      throw new TenantException(Reason.CONFLICT, "license code '" + licenseCode + "' exists");
    }
    License license =
        new License(
            ids.next(),
            partnerId,
            licenseCode,
            name.strip(),
            emailOf(email),
            Optional.ofNullable(expiresOn),
            addresses(allowed),
            false,
            clock.instant(),
            Secrets.random(KEY_LENGTH),
            Secrets.random(KEY_LENGTH));
    store.insert(license);
    forgetAccess();
    return license;
  }

  public List<License> licenses() {
    return store.licenses();
  }

  public License license(long id) {
    return store
        .license(id)
        .orElseThrow(() -> new TenantException(Reason.NOT_FOUND, "no license " + id));
  }

  public Optional<License> licenseByCode(String code) {
    return store.licenseByCode(code);
  }

  // --- devices

  public Device createDevice(long licenseId, String number, String driver) {
    return createDevice(licenseId, number, driver, Map.of(), null, null, null);
  }

  /** Creates a device with its driver configuration ({@code --set key=value}). */
  public Device createDevice(
      long licenseId, String number, String driver, Map<String, String> config) {
    return createDevice(licenseId, number, driver, config, null, null, null);
  }

  /** Creates a device of a license; credentials are generated when null. */
  public Device createDevice(
      long licenseId,
      String number,
      String driver,
      Map<String, String> config,
      String ecoKey,
      String deviceKey,
      String crmDeviceId) {
    license(licenseId);
    String e164 =
        phones
            .normalize(number)
            .orElseThrow(
                () ->
                    new TenantException(
                        Reason.INVALID, "number: '" + number + "' is not a valid phone number"));
    if (devices.deviceByNumber(e164).isPresent()) {
      // One number is one account on the network: it cannot be linked twice.
      throw new TenantException(Reason.CONFLICT, "a device with number " + e164 + " exists");
    }
    String driverName = driver == null || driver.isBlank() ? drivers.defaultName() : driver.strip();
    if (!drivers.names().contains(driverName)) {
      throw new TenantException(
          Reason.INVALID, "driver: '" + driverName + "' is not one of " + drivers.names());
    }
    Map<String, String> checkedConfig = configured(driverName, Map.of(), config);
    requireUnshared(driverName, checkedConfig, -1);
    Device device =
        new Device(
            ids.next(),
            licenseId,
            e164,
            ecoKey != null ? requireSecret("key", ecoKey) : Secrets.random(KEY_LENGTH),
            deviceKey != null ? requireSecret("device-key", deviceKey) : Secrets.random(KEY_LENGTH),
            crmDeviceId != null ? requireSecret("crm-id", crmDeviceId) : Secrets.random(24),
            driverName,
            false,
            clock.instant());
    try {
      devices.insert(device, checkedConfig);
      forgetAccess();
    } catch (RuntimeException e) {
      throw new TenantException(Reason.CONFLICT, "a device with one of these credentials exists");
    }
    // Its sender starts now, and its driver attaches it: an engine's session is set up when the
    // device is created, not at its first send.
    deviceListeners.forEach(l -> l.accept(device));
    return device;
  }

  public List<Device> devices() {
    return devices.devices();
  }

  public Device device(long id) {
    return devices
        .device(id)
        .orElseThrow(() -> new TenantException(Reason.NOT_FOUND, "no device " + id));
  }

  /**
   * Gives a device a new {@code credential}; the device answered carries it, the only time a device
   * key or CRM device id is readable (they are stored as hashes).
   */
  public Device rotate(long deviceId, Credential credential) {
    device(deviceId);
    String value = Secrets.random(credential == Credential.CRM_ID ? 24 : KEY_LENGTH);
    devices.setDeviceCredential(deviceId, credential.column, value);
    forgetAccess();
    Device d = device(deviceId);
    return new Device(
        d.id(),
        d.licenseId(),
        d.number(),
        d.ecoKey(),
        credential == Credential.DEVICE_KEY ? value : d.deviceKey(),
        credential == Credential.CRM_ID ? value : d.crmDeviceId(),
        d.driver(),
        d.disabled(),
        d.createdAt());
  }

  // --- switching off and on

  public void setPartnerDisabled(long id, boolean disabled) {
    requireFound(store.setDisabled("partner", id, disabled), "partner", id);
    forgetAccess();
  }

  public void setLicenseDisabled(long id, boolean disabled) {
    requireFound(store.setDisabled("license", id, disabled), "license", id);
    forgetAccess();
  }

  /** Renews (or ends) a license: its new last day, or null for none. */
  public License setLicenseExpiry(long id, LocalDate expiresOn) {
    requireFound(store.setLicenseExpiry(id, expiresOn), "license", id);
    forgetAccess();
    return license(id);
  }

  public void setDeviceDisabled(long id, boolean disabled) {
    requireFound(devices.setDisabled(id, disabled), "device", id);
    forgetAccess();
    Device changed = device(id);
    deviceListeners.forEach(l -> l.accept(changed));
  }

  /**
   * Deletes a device (a number given back, a customer gone): its credentials stop working at once
   * on this node and within {@link #ACCESS_CACHE_TTL} on the others, its webhook URLs, driver
   * configuration, secrets and session state go, and its number may be linked again. Its history
   * stays (a tombstone row keeps it; see docs/decisions.md). Then the listeners of {@link
   * #onDeviceDeleted} stop its sender, which detaches it from its driver, and end its queue.
   */
  public Device deleteDevice(long id) {
    Device device = device(id);
    List<String> newCredentials =
        List.of(Secrets.random(KEY_LENGTH), Secrets.random(KEY_LENGTH), Secrets.random(KEY_LENGTH));
    requireFound(devices.delete(id, clock.instant(), newCredentials), "device", id);
    forgetAccess();
    deletedListeners.forEach(l -> l.accept(device));
    return device;
  }

  private final List<java.util.function.Consumer<Device>> deletedListeners =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  /**
   * Calls {@code listener} after a device was deleted in this process, with the device as it was. A
   * delete made by another process is seen by the device's sender when it reads its device again.
   */
  public void onDeviceDeleted(java.util.function.Consumer<Device> listener) {
    deletedListeners.add(listener);
  }

  private final List<java.util.function.Consumer<Device>> deviceListeners =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  /**
   * Calls {@code listener} after a device of this process was switched off or on, or configured
   * (the senders detach and attach it). A change made by another process is seen by a sender's own
   * periodic look at its device.
   */
  public void onDeviceChanged(java.util.function.Consumer<Device> listener) {
    deviceListeners.add(listener);
  }

  // --- access

  /**
   * The device whose Eco key is {@code key}, if it may be used today: the device, its license and
   * its partner are switched on and the license has not expired.
   */
  public Device deviceForEcoKey(String key) {
    AccessCache.Access access = ecoKeys.get(key, this::loadEcoAccess);
    requireUsable(access);
    return access.device();
  }

  /**
   * The device whose {@code credential} (the multi-agent {@code device-key}, the CRM {@code
   * deviceId}, …) is {@code value}, if it may be used today, as {@link #deviceForEcoKey}.
   */
  public Device deviceFor(Credential credential, String value) {
    if (credential == Credential.KEY) {
      return deviceForEcoKey(value);
    }
    AccessCache.Access access =
        ecoKeys.get(
            credential.name() + "\u0000" + value,
            k -> {
              Device device =
                  devices
                      .deviceByCredential(credential.column, value)
                      .orElseThrow(() -> new TenantException(Reason.NOT_FOUND, "unknown device"));
              License license = license(device.licenseId());
              return new AccessCache.Access(device, license, partner(license.partnerId()));
            });
    requireUsable(access);
    return access.device();
  }

  /**
   * {@link #deviceForEcoKey} for reading only: a device whose license expired may still read its
   * history (reports, lookups) and cancel schedules; switched-off devices may not.
   */
  public Device deviceForEcoKeyToRead(String key) {
    AccessCache.Access access = ecoKeys.get(key, this::loadEcoAccess);
    try {
      requireUsable(access);
    } catch (TenantException e) {
      if (e.reason() != Reason.EXPIRED) {
        throw e;
      }
    }
    return access.device();
  }

  /** The license whose push key is {@code key}, if it is switched on (expiry is the caller's). */
  public License licenseForPushKey(String key) {
    License license =
        store
            .licenseByPushKey(key)
            .orElseThrow(() -> new TenantException(Reason.NOT_FOUND, "unknown push key"));
    if (license.disabled() || partner(license.partnerId()).disabled()) {
      throw new TenantException(Reason.DISABLED, "the license is switched off");
    }
    return license;
  }

  /**
   * The license whose code is {@code code}, if it and its partner are switched on; it may have
   * expired (an expired license may still read and remove what it set).
   *
   * @throws TenantException {@code NOT_FOUND} or {@code DISABLED}
   */
  public License licenseToRead(String code) {
    License license =
        licenseByCode(code.strip())
            .orElseThrow(() -> new TenantException(Reason.NOT_FOUND, "no such license"));
    if (license.disabled() || partner(license.partnerId()).disabled()) {
      throw new TenantException(Reason.DISABLED, "the license is switched off");
    }
    return license;
  }

  /**
   * {@link #licenseToRead}, if the license may also be used today (it has not expired).
   *
   * @throws TenantException {@code NOT_FOUND}, {@code DISABLED} or {@code EXPIRED}
   */
  public License licenseToUse(String code) {
    return requireNotExpired(licenseToRead(code));
  }

  /**
   * {@code license} if it has not expired by today (whether it is switched on is the caller's, as
   * for {@link #licenseForPushKey}).
   *
   * @throws TenantException {@code EXPIRED}
   */
  public License requireNotExpired(License license) {
    if (isExpired(license)) {
      throw new TenantException(
          Reason.EXPIRED, "the license expired on " + license.expiresOn().orElseThrow());
    }
    return license;
  }

  /**
   * The ids of every device a license ever had, deleted ones included: for reading its history (how
   * a message ended stays readable after its device was deleted).
   */
  public java.util.Set<Long> deviceIdsEverOf(License license) {
    return devices.deviceIdsOfLicense(license.id());
  }

  /** A license's devices, oldest first. */
  public List<Device> devicesOf(License license) {
    return licenseDevices.get(
        Long.toString(license.id()), id -> List.copyOf(devices.devicesOfLicense(license.id())));
  }

  /**
   * The partner these Basic credentials belong to, if it is switched on. The secret's hash is
   * compared with the stored one in constant time; an unknown user and a wrong secret fail alike.
   */
  public Partner authenticatePartner(String user, String secret) {
    Optional<Partner> partner = store.partnerByBasicUser(user);
    byte[] expected =
        partner
            .map(Partner::basicSecret)
            .orElse("")
            .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    boolean matches =
        java.security.MessageDigest.isEqual(
            expected,
            io.kurir.store.SecretBox.hash(secret)
                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
    if (partner.isEmpty() || !matches) {
      throw new TenantException(Reason.NOT_FOUND, "unknown credentials");
    }
    if (partner.get().disabled()) {
      throw new TenantException(Reason.DISABLED, "the partner is disabled");
    }
    return partner.get();
  }

  /** The operator's time zone: where a day begins for licenses, reports and daily caps. */
  public ZoneId zone() {
    return zone;
  }

  /** Whether the license has expired by today (in the operator zone). */
  public boolean isExpired(License license) {
    return license.expiredOn(LocalDate.ofInstant(clock.instant(), zone));
  }

  /** Today in the operator zone. */
  public LocalDate today() {
    return LocalDate.ofInstant(clock.instant(), zone);
  }

  /**
   * The device with this id if it may be used today (as {@link #deviceForEcoKey}), read afresh: for
   * work that starts without a request, such as a schedule falling due.
   */
  public Device usableDevice(long id) {
    AccessCache.Access access = accessOfDevice(id);
    requireUsable(access);
    return access.device();
  }

  private AccessCache.Access accessOfDevice(long id) {
    Device device = device(id);
    License license = license(device.licenseId());
    return new AccessCache.Access(device, license, partner(license.partnerId()));
  }

  /**
   * {@link #usableDevice}, for a request that names the device: read at its first use and kept as a
   * key is ({@link #ACCESS_CACHE_TTL}; any change through this gateway clears it).
   */
  public Device usableDeviceForRequest(long id) {
    AccessCache.Access access = byDeviceId.get(Long.toString(id), key -> accessOfDevice(id));
    requireUsable(access);
    return access.device();
  }

  /** The drivers a device may name, the default first (the console's choice of driver). */
  public java.util.Set<String> driverNames() {
    return drivers.names();
  }

  /**
   * Whether this gateway has the device's driver loaded. A device created under another
   * configuration (a driver since switched off) names one it has not, and cannot send.
   */
  public boolean driverLoaded(Device device) {
    return drivers.names().contains(device.driver());
  }

  /** A device's driver configuration, secrets included: for its driver only. */
  public Map<String, String> deviceConfig(long deviceId) {
    return devices.deviceConfig(deviceId);
  }

  /**
   * A device's driver configuration as people may see it: secrets shown as {@link #SECRET_SHOWN}.
   */
  public Map<String, String> deviceConfigShown(Device device) {
    Map<String, String> shown = new java.util.TreeMap<>();
    devices
        .deviceConfig(device.id())
        .forEach((k, v) -> shown.put(k, drivers.isSecret(device.driver(), k) ? SECRET_SHOWN : v));
    return shown;
  }

  /** How a secret configuration value is shown: set, but not what it is. */
  public static final String SECRET_SHOWN = "(secret)";

  /**
   * Changes a device's driver configuration ({@code PATCH /admin/devices/{id}}, {@code device
   * set}): keys given replace theirs, an empty value removes one; the rest stays. Takes effect at
   * the driver's next use (a token that expired is replaced without a restart).
   */
  public Device configureDevice(long deviceId, Map<String, String> changes) {
    Device device = device(deviceId);
    Map<String, String> next = configured(device.driver(), devices.deviceConfig(deviceId), changes);
    requireUnshared(device.driver(), next, deviceId);
    devices.replaceDeviceConfig(deviceId, next);
    deviceListeners.forEach(l -> l.accept(device));
    return device;
  }

  /**
   * Refuses a configuration that names what another device of the same driver names already (its
   * {@link DeviceDrivers#uniqueConfigKeys}): two devices on one engine session would receive each
   * other's messages, across licenses too. Values are sealed in the store, so they are compared
   * here, device by device.
   */
  private void requireUnshared(String driver, Map<String, String> config, long self) {
    for (String key : drivers.uniqueConfigKeys(driver)) {
      String value = config.get(key);
      if (value == null) {
        continue;
      }
      for (Device other : devices.devices()) {
        if (other.id() != self
            && other.driver().equals(driver)
            && value.equals(devices.deviceConfig(other.id()).get(key))) {
          throw new TenantException(
              Reason.CONFLICT,
              "config: '"
                  + key
                  + "' = '"
                  + value
                  + "' is already device "
                  + other.id()
                  + "'s: two devices cannot share it");
        }
      }
    }
  }

  private Map<String, String> configured(
      String driver, Map<String, String> current, Map<String, String> changes) {
    try {
      return drivers.configure(driver, current, changes);
    } catch (IllegalArgumentException e) {
      throw new TenantException(Reason.INVALID, e.getMessage());
    }
  }

  private AccessCache.Access loadEcoAccess(String key) {
    Device device =
        devices
            .deviceByEcoKey(key)
            .orElseThrow(() -> new TenantException(Reason.NOT_FOUND, "unknown key"));
    License license = license(device.licenseId());
    return new AccessCache.Access(device, license, partner(license.partnerId()));
  }

  private void requireUsable(AccessCache.Access access) {
    License license = access.license();
    if (access.device().disabled() || license.disabled() || access.partner().disabled()) {
      throw new TenantException(Reason.DISABLED, "the device or its license is disabled");
    }
    if (license.expiredOn(LocalDate.ofInstant(clock.instant(), zone))) {
      throw new TenantException(
          Reason.EXPIRED, "the license expired on " + license.expiresOn().get());
    }
  }

  /**
   * Whether a device operation may come from {@code remoteAddress}: always when the device's
   * license lists no addresses, else only from a listed address or range.
   */
  public boolean isAllowedFrom(Device device, String remoteAddress) {
    List<String> allowed = license(device.licenseId()).allowedAddresses();
    if (allowed.isEmpty()) {
      return true;
    }
    return AddressRange.literal(remoteAddress)
        .map(address -> allowed.stream().anyMatch(range -> AddressRange.contains(range, address)))
        .orElse(false);
  }

  // --- checks

  private static void requireFound(boolean found, String what, long id) {
    if (!found) {
      throw new TenantException(Reason.NOT_FOUND, "no " + what + " " + id);
    }
  }

  private static void requireText(String field, String value) {
    if (value == null || value.isBlank()) {
      throw new TenantException(Reason.INVALID, field + ": must not be empty");
    }
  }

  private static String requireSecret(String field, String value) {
    if (!EXPLICIT_SECRET.matcher(value).matches()) {
      throw new TenantException(
          Reason.INVALID, field + ": use 8 to 128 letters, digits, dots, dashes or underscores");
    }
    return value;
  }

  private static String emailOf(String email) {
    return email == null ? "" : email.strip();
  }

  private static List<String> addresses(List<String> allowed) {
    List<String> out = new ArrayList<>();
    if (allowed == null) {
      return out;
    }
    for (String a : allowed) {
      String address = a.strip();
      if (address.isEmpty()) {
        continue;
      }
      if (!AddressRange.isValid(address)) {
        throw new TenantException(
            Reason.INVALID, "allowed address '" + address + "' is not an IP address or CIDR range");
      }
      out.add(address);
    }
    return out;
  }
}
