package io.kurir.api.push;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.api.ErrorCatalogue;
import io.kurir.api.ErrorStyle;
import io.kurir.api.ListedValues;
import io.kurir.api.RequestFields;
import io.kurir.api.RouteTable;
import io.kurir.message.MessageText;
import io.kurir.message.Recipient;
import io.kurir.message.SendCommand;
import io.kurir.message.Sends;
import io.kurir.phone.PhoneNumbers;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.MobileCs;
import io.kurir.tenant.Tenants;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Push v1, shaped like OneSignal's {@code POST /api/v1/notifications}: each id of {@code
 * include_player_ids} names a handset (a mobile CS entry's player id or handset id, or a device id
 * of the caller's license), and the device behind it sends {@code data.message} to {@code
 * data.no_wa}. Answers {@code {id, recipients, external_id}}, plus OneSignal's {@code
 * errors.invalid_player_ids} for ids that name nothing; refusals are {@code {"errors": [...]}}.
 */
public final class PushV1Routes implements RouteTable {
  /** Ids per notification, as OneSignal allows. */
  static final int MAX_IDS = 2_000;

  private final PushCredentials credentials;
  private final MobileCs mobileCs;
  private final PhoneNumbers phones;
  private final Sends sends;

  /** The accepted {@code app_id}s ({@code push.app-ids}). */
  private final List<String> appIds;

  public PushV1Routes(
      Tenants tenants, MobileCs mobileCs, PhoneNumbers phones, Sends sends, List<String> appIds) {
    this.credentials = new PushCredentials(tenants);
    this.mobileCs = mobileCs;
    this.phones = phones;
    this.sends = sends;
    this.appIds = List.copyOf(appIds);
  }

  @Override
  public String pathPrefix() {
    return "/api/v1/";
  }

  @Override
  public ErrorStyle errorStyle() {
    return ErrorStyle.ERRORS_LIST_JSON;
  }

  /** An expired license's push key; a refused send names the text, {@code data.message}. */
  private static final ErrorCatalogue ERRORS = PushErrors.catalogue("data.message");

  @Override
  public ErrorCatalogue errors() {
    return ERRORS;
  }

  @Override
  public void addTo(RoutesConfig routes) {
    routes.post("/api/v1/notifications", this::notify);
  }

  private void notify(Context ctx) {
    License license = credentials.license(ctx);
    RequestFields f = RequestFields.of(ctx);
    if (!appIds.contains(f.required("app_id").strip())) {
      throw ApiException.fieldNotValid("app_id", "not an app_id this installation accepts");
    }
    List<String> targets = targets(f.required("include_player_ids"));
    String text =
        MessageText.normalize(f.text("data.message").or(() -> f.text("contents.en")).orElse(""));
    if (text.isBlank()) {
      throw ApiException.fieldEmpty("data.message");
    }
    String to =
        phones
            .normalize(f.required("data.no_wa"))
            .orElseThrow(() -> ApiException.fieldNotValid("data.no_wa", "not a phone number"));
    Optional<String> key = f.idempotencyKey();
    List<String> invalid = new ArrayList<>();
    List<Device> devices = handsets(license, targets, invalid);
    // An idempotency key is scoped to the device: each handset's send is checked on its own.
    List<Long> sent = new ArrayList<>();
    for (Device device : devices) {
      SendCommand command =
          SendCommand.builder("push.v1")
              .to(Recipient.number(to))
              .text(text)
              .idempotencyKey(key)
              .build();
      sent.add(sends.send(device, command).first().id());
    }
    ctx.json(reply(sent, invalid));
  }

  /**
   * The license's handsets the ids name, each once: several ids may name one handset (its player id
   * and its handset id), and it sends once. Ids that name none are added to {@code invalid}.
   */
  private List<Device> handsets(License license, List<String> targets, List<String> invalid) {
    java.util.Set<Long> seen = new java.util.HashSet<>();
    List<Device> devices = new ArrayList<>();
    for (String target : targets) {
      Optional<Device> device = mobileCs.deviceForTarget(license, target);
      if (device.isEmpty()) {
        invalid.add(target);
      } else if (seen.add(device.get().id())) {
        devices.add(device.get());
      }
    }
    return devices;
  }

  /** The ids of {@code include_player_ids}, at most {@link #MAX_IDS}. */
  private static List<String> targets(String rawTargets) {
    if (ListedValues.moreThan(rawTargets, ",", MAX_IDS)) { // before the list is split
      throw ApiException.badRequest(
          "include_player_ids_too_many", "at most " + MAX_IDS + " ids per notification");
    }
    List<String> targets = new ArrayList<>();
    for (String id : rawTargets.split(",")) {
      if (!id.isBlank()) {
        targets.add(id.strip());
      }
    }
    return targets;
  }

  /** OneSignal's {@code {id, recipients, external_id[, errors]}}. */
  private static Map<String, Object> reply(List<Long> sent, List<String> invalid) {
    int recipients = sent.size();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("id", recipients == 0 ? "" : notificationId(sent));
    body.put("recipients", recipients);
    body.put("external_id", null);
    if (!invalid.isEmpty()) {
      body.put("errors", Map.of("invalid_player_ids", invalid));
    }
    return body;
  }

  /**
   * The notification's id, made from its messages' ids: unique as they are, and the same for a
   * repeat with an idempotency key, which is answered the same messages.
   */
  private static String notificationId(List<Long> messageIds) {
    return UUID.nameUUIDFromBytes(
            ("push.v1:" + messageIds).getBytes(java.nio.charset.StandardCharsets.UTF_8))
        .toString();
  }
}
