package io.kurir.api.v1;

import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.device.DeviceState;
import io.kurir.device.DeviceStates;
import io.kurir.tenant.Device;
import io.kurir.tenant.Tenants;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code GET /v1/devices} and {@code GET /v1/devices/{id}}: the devices a key reaches. */
final class V1DeviceHandlers {
  private final Tenants tenants;
  private final DeviceStates states;

  V1DeviceHandlers(Tenants tenants, DeviceStates states) {
    this.tenants = tenants;
    this.states = states;
  }

  void list(Context ctx) {
    Map<Long, DeviceState> recorded = states.all();
    List<Map<String, Object>> data =
        V1Routes.caller(ctx).devices(tenants).stream().map(d -> view(d, recorded)).toList();
    ctx.json(Map.of("data", data));
  }

  void one(Context ctx) {
    String id = ctx.pathParam("id");
    Device device =
        V1Routes.caller(ctx).devices(tenants).stream()
            .filter(d -> Long.toString(d.id()).equals(id))
            .findFirst()
            .orElseThrow(() -> new ApiException(404, "device_not_found", "no device " + id));
    ctx.json(view(device, states.all()));
  }

  /** {@code {id, number, driver, state}}: the state as last recorded, as the Admin API lists it. */
  static Map<String, Object> view(Device d, Map<Long, DeviceState> recorded) {
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("id", Long.toString(d.id()));
    v.put("number", d.number());
    v.put("driver", d.driver());
    v.put("state", recorded.getOrDefault(d.id(), DeviceState.NONE).wireName());
    // The device's capabilities (message kinds, edits, reactions, presence) go here, read from its
    // driver once the driver SPI declares them (issue 29, item 3); no value is shown until then.
    return v;
  }
}
