package io.kurir.bench;

import io.kurir.Gateway;
import io.kurir.tenant.ApiScope;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

/**
 * The {@code native} row: Kurir API v1's send ({@code POST /v1/messages} with a license's bearer
 * API key, the Cloud API's message object) under wrk, on the main gateway beside the no-op and
 * {@code async_send_message} rows. The device is offline, so, as for the async row, the row
 * measures durable acceptance alone: the key's look-up, the body's reading and the message's commit
 * before the 201.
 */
final class NativeBench {
  private static final String BODY =
      "{\"to\":\"+6281234567890\",\"type\":\"text\",\"text\":{\"body\":\"Kode OTP 123456\"}}";

  private NativeBench() {}

  /** Warms the route up, then measures it for {@code duration}. */
  static Wrk.Result accept(Gateway gateway, Wrk wrk, Duration duration) {
    // A license of its own with one device, so that the key needs no "device" in the body.
    License license = Bench.newLicense(gateway.tenants());
    Device device = Bench.newDevice(gateway, license, "+6281100000011");
    String key =
        gateway
            .tenants()
            .apiKeys()
            .create(license.id(), "bench", Set.of(ApiScope.SEND))
            .key()
            .orElseThrow();
    Map<String, String> bearer = Map.of("Authorization", "Bearer " + key);
    String url = gateway.baseUrl() + "/v1/messages";
    wrk.postJson(url, BODY, bearer, Bench.WARM_UP);
    gateway.sandbox().unpair(device.id());
    return wrk.postJson(url, BODY, bearer, duration);
  }
}
