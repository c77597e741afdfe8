package io.kurir.api.v1;

import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.device.DeviceState;
import io.kurir.device.DeviceStates;
import io.kurir.driver.Capabilities;
import io.kurir.driver.Drivers;
import io.kurir.tenant.Device;
import io.kurir.tenant.Tenants;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /v1/devices} and {@code GET /v1/devices/{id}}: the devices a key reaches, each with
 * what its driver can carry, so that a caller knows before sending what would be refused.
 */
final class V1DeviceHandlers {
  private final Tenants tenants;
  private final DeviceStates states;
  private final Drivers drivers;

  V1DeviceHandlers(Tenants tenants, DeviceStates states, Drivers drivers) {
    this.tenants = tenants;
    this.states = states;
    this.drivers = drivers;
  }

  void list(Context ctx) {
    Map<Long, DeviceState> recorded = states.all();
    List<Map<String, Object>> data =
        V1Routes.caller(ctx).devices(tenants).stream()
            .map(d -> view(d, recorded, capabilities(d)))
            .toList();
    ctx.json(Map.of("data", data));
  }

  void one(Context ctx) {
    String id = ctx.pathParam("id");
    Device device =
        V1Routes.caller(ctx).devices(tenants).stream()
            .filter(d -> Long.toString(d.id()).equals(id))
            .findFirst()
            .orElseThrow(() -> new ApiException(404, "device_not_found", "no device " + id));
    ctx.json(view(device, states.all(), capabilities(device)));
  }

  private Capabilities capabilities(Device d) {
    return drivers.named(d.driver()).map(x -> x.capabilities()).orElse(Capabilities.TEXT_ONLY);
  }

  /**
   * {@code {id, number, driver, state, capabilities}}: the state as last recorded, as the Admin API
   * lists it, and what the device's driver declares it carries.
   */
  static Map<String, Object> view(Device d, Map<Long, DeviceState> recorded, Capabilities can) {
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("id", Long.toString(d.id()));
    v.put("number", d.number());
    v.put("driver", d.driver());
    v.put("state", recorded.getOrDefault(d.id(), DeviceState.NONE).wireName());
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("kinds", can.kinds().stream().map(k -> k.wireName()).sorted().toList());
    c.put("groups", can.groups());
    c.put("replies", can.replies());
    c.put("mentions", can.mentions());
    c.put("reactions", can.reactions());
    c.put("edits", can.edits());
    c.put("revoke", can.revoke());
    c.put("presence", can.presence());
    c.put("mark_read", can.markRead());
    v.put("capabilities", c);
    return v;
  }
}
