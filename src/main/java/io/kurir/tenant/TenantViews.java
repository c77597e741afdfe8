package io.kurir.tenant;

import io.kurir.time.Timestamps;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Partners, licenses and devices as the Admin API and {@code ./kurir admin} show them. Ids are
 * digit strings, like every id Kurir hands out. A credential stored as a hash (a partner's secret,
 * a license's code and push key, a device's device key and CRM id) is shown only in the answer to
 * its creation or rotation, and left out of every later read.
 */
public final class TenantViews {
  private final Timestamps timestamps;

  public TenantViews(Timestamps timestamps) {
    this.timestamps = timestamps;
  }

  public Map<String, Object> of(Partner p) {
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("id", Long.toString(p.id()));
    v.put("name", p.name());
    v.put("email", p.email());
    v.put("basicUser", p.basicUser());
    Credentials.shown(p.basicSecret()).ifPresent(s -> v.put("basicSecret", s));
    v.put("disabled", p.disabled());
    v.put("createdAt", timestamps.reply(p.createdAt()));
    return v;
  }

  public Map<String, Object> of(License l) {
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("id", Long.toString(l.id()));
    v.put("partnerId", Long.toString(l.partnerId()));
    Credentials.shown(l.code()).ifPresent(c -> v.put("code", c));
    v.put("name", l.name());
    v.put("email", l.email());
    v.put("expiresOn", l.expiresOn().map(Object::toString).orElse(null));
    v.put("allowedAddresses", l.allowedAddresses());
    v.put("webhookSecret", l.webhookSecret());
    Credentials.shown(l.pushKey()).ifPresent(k -> v.put("pushKey", k));
    v.put("disabled", l.disabled());
    v.put("createdAt", timestamps.reply(l.createdAt()));
    return v;
  }

  public Map<String, Object> of(Device d) {
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("id", Long.toString(d.id()));
    v.put("licenseId", Long.toString(d.licenseId()));
    v.put("number", d.number());
    v.put("key", d.ecoKey());
    Credentials.shown(d.deviceKey()).ifPresent(k -> v.put("deviceKey", k));
    Credentials.shown(d.crmDeviceId()).ifPresent(k -> v.put("crmDeviceId", k));
    v.put("driver", d.driver());
    v.put("disabled", d.disabled());
    v.put("createdAt", timestamps.reply(d.createdAt()));
    return v;
  }

  /** A device with its driver configuration, secrets shown only as set. */
  public Map<String, Object> of(Device d, Tenants tenants) {
    Map<String, Object> v = of(d);
    v.put("config", tenants.deviceConfigShown(d));
    return v;
  }
}
