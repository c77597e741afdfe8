package io.kurir.tenant;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Who called Kurir's own API with a bearer token: a license (through one of its API keys, with the
 * key's scopes) or one device (through its Eco key, with every scope, for that device alone).
 *
 * @param keyId the API key's id; empty for a device's Eco key
 * @param device the device an Eco key names; empty for a license key, which reaches every device of
 *     its license
 */
public record ApiCaller(
    License license, Optional<Device> device, Set<ApiScope> scopes, Optional<Long> keyId) {

  public ApiCaller {
    scopes = Set.copyOf(scopes);
  }

  public boolean has(ApiScope scope) {
    return scopes.contains(scope);
  }

  /**
   * The devices this caller reaches: its own device, or every device its license has now (a deleted
   * device is reached by no key).
   */
  public List<Device> devices(Tenants tenants) {
    return device.map(List::of).orElseGet(() -> tenants.devicesOf(license));
  }

  /**
   * The ids of every device whose history this caller may read: its own device, or every device its
   * license ever had (what a deleted device sent stays readable by the license, as in the Eco API's
   * reports).
   */
  public Set<Long> deviceIdsToRead(Tenants tenants) {
    return device.map(d -> Set.of(d.id())).orElseGet(() -> tenants.deviceIdsEverOf(license));
  }
}
