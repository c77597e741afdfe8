package io.kurir.driver.cloud;

import com.fasterxml.jackson.databind.JsonNode;
import io.kurir.driver.DeviceConfig;
import io.kurir.driver.DeviceLookup;
import io.kurir.driver.DeviceRef;
import io.kurir.driver.DriverReply;
import io.kurir.driver.DriverRequest;
import io.kurir.driver.DriverRoute;
import io.kurir.driver.DriverRoutes;
import io.kurir.driver.RouteException;
import io.kurir.driver.Signatures;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The Cloud API's webhook, {@code /drivers/cloud/webhook}: Meta's verification handshake (GET) and
 * its event notifications (POST). A POST is routed by each change's {@code
 * metadata.phone_number_id} to the devices of that number and taken only with a valid {@code
 * X-Hub-Signature-256}, the HMAC-SHA256 of the raw body with each of those devices' app secret;
 * otherwise nothing of it is recorded. It is answered 200 once its incoming messages are stored, so
 * that Meta delivers again what could not be.
 */
final class CloudWebhookRoutes {
  static final String PATH = "/drivers/cloud/webhook";

  private final CloudDriver driver;
  private final DeviceLookup devices;
  private final CloudEvents events;

  CloudWebhookRoutes(CloudDriver driver, DeviceLookup devices) {
    this.driver = driver;
    this.devices = devices;
    this.events = new CloudEvents(driver);
  }

  /** Served as the {@code cloudwebhook} family (its name in the request metrics). */
  DriverRoutes routes() {
    return new DriverRoutes(
        "cloudwebhook",
        "/drivers/cloud/",
        List.of(
            DriverRoute.get(PATH, this::handshake), DriverRoute.post(PATH, this::notification)));
  }

  /**
   * {@code hub.mode=subscribe}, {@code hub.verify_token}, {@code hub.challenge}: the challenge is
   * echoed when the token is a cloud device's verify token or {@code drivers.cloud.verify-token}.
   */
  DriverReply handshake(DriverRequest ctx) {
    String mode = Optional.ofNullable(ctx.queryParam("hub.mode")).orElse("");
    String token = Optional.ofNullable(ctx.queryParam("hub.verify_token")).orElse("");
    String challenge = Optional.ofNullable(ctx.queryParam("hub.challenge")).orElse("");
    if (!mode.equals("subscribe")) {
      throw RouteException.fieldNotValid("hub.mode", "hub.mode must be subscribe");
    }
    if (challenge.isBlank() || challenge.length() > 256 || !challenge.matches("[A-Za-z0-9_-]+")) {
      throw RouteException.fieldNotValid("hub.challenge", "hub.challenge must be a short token");
    }
    if (token.isEmpty() || !knownVerifyToken(token)) {
      throw new RouteException(
          403, "verify_token_not_valid", "hub.verify_token is not the verify token of any device");
    }
    return DriverReply.text(challenge);
  }

  private boolean knownVerifyToken(String token) {
    boolean known = driver.driverVerifyToken().filter(t -> same(t, token)).isPresent();
    for (DeviceRef d : cloudDevices()) {
      known |=
          config(d).get(CloudDriverFactory.VERIFY_TOKEN).filter(t -> same(t, token)).isPresent();
    }
    return known;
  }

  DriverReply notification(DriverRequest ctx) {
    byte[] raw = ctx.bodyAsBytes();
    JsonNode root;
    try {
      root = GraphApi.JSON.readTree(raw);
    } catch (IOException e) {
      throw RouteException.badRequest("body_not_valid", "the body is not JSON");
    }
    if (root == null || !root.path("entry").isArray()) {
      throw RouteException.badRequest("body_not_valid", "the body has no entry array");
    }
    // Every change, with the devices of the number it names.
    List<Map.Entry<JsonNode, List<DeviceRef>>> changes = new ArrayList<>();
    boolean namedAny = false;
    for (JsonNode entry : root.path("entry")) {
      for (JsonNode change : entry.path("changes")) {
        String id = change.path("value").path("metadata").path("phone_number_id").asText("");
        if (id.isEmpty()) {
          continue;
        }
        namedAny = true;
        List<DeviceRef> of =
            devices.withConfig(CloudDriverFactory.NAME, CloudDriverFactory.PHONE_NUMBER_ID, id);
        if (!of.isEmpty()) {
          changes.add(Map.entry(change, of));
        }
      }
    }
    if (!namedAny) {
      throw RouteException.badRequest(
          "phone_number_id_missing", "no change names its metadata.phone_number_id");
    }
    if (changes.isEmpty()) {
      throw new RouteException(404, "device_not_found", "no cloud device has this phone number id");
    }
    String signature = Optional.ofNullable(ctx.header("X-Hub-Signature-256")).orElse("").strip();
    if (signature.isEmpty()) {
      throw new RouteException(401, "signature_missing", "X-Hub-Signature-256 is missing");
    }
    // All of it is verified before any of it is recorded.
    for (var change : changes) {
      for (DeviceRef d : change.getValue()) {
        String secret = config(d).get(CloudDriverFactory.APP_SECRET).orElse("");
        if (secret.isEmpty()
            || !same(signature.toLowerCase(Locale.ROOT), "sha256=" + hmac(secret, raw))) {
          throw new RouteException(
              401, "signature_not_valid", "X-Hub-Signature-256 does not match the body");
        }
      }
    }
    for (var e : changes) {
      if (!e.getKey().path("field").asText("messages").equals("messages")) {
        continue;
      }
      for (DeviceRef d : e.getValue()) {
        try {
          events.handle(d, config(d), e.getKey().path("value"));
        } catch (CloudEvents.NotStored failure) {
          throw new RouteException(
              503,
              "not_stored",
              "an incoming message could not be stored: " + failure.getMessage());
        }
      }
    }
    return DriverReply.json(Map.of("status", "ok"));
  }

  private List<DeviceRef> cloudDevices() {
    return devices.ofDriver(CloudDriverFactory.NAME);
  }

  private DeviceConfig config(DeviceRef d) {
    return driver.context().configOf().apply(d.id());
  }

  static String hmac(String secret, byte[] body) {
    return Signatures.hmacHex("HmacSHA256", secret, body);
  }

  private static boolean same(String a, String b) {
    return Signatures.same(a, b);
  }
}
