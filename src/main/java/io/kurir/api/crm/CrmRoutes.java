package io.kurir.api.crm;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.api.ErrorStyle;
import io.kurir.api.Guards;
import io.kurir.api.RemoteMedia;
import io.kurir.api.RequestFields;
import io.kurir.api.RouteTable;
import io.kurir.contact.ContactIdentities;
import io.kurir.message.MediaRef;
import io.kurir.message.Message;
import io.kurir.message.MessageText;
import io.kurir.message.Messages;
import io.kurir.message.Recipient;
import io.kurir.message.SendRefused;
import io.kurir.message.SendRequest;
import io.kurir.message.SendResult;
import io.kurir.phone.PhoneNumbers;
import io.kurir.tenant.Device;
import io.kurir.tenant.TenantException;
import io.kurir.tenant.Tenants;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The CRM API ({@code /send/}): the browser extension's sends, named by the device's CRM {@code
 * deviceId}. A send waits (bounded) for its outcome, like the Eco API's {@code send_message}, so
 * that the person who clicked sees whether it went: {@code {status, message, data{number, message,
 * deviceId[, imageUrl]}}}.
 */
public final class CrmRoutes implements RouteTable {
  private final Tenants tenants;
  private final ContactIdentities contacts;
  private final PhoneNumbers phones;
  private final Messages messages;
  private final RemoteMedia media;
  private final Duration syncTimeout;

  public CrmRoutes(
      Tenants tenants,
      PhoneNumbers phones,
      Messages messages,
      RemoteMedia media,
      Duration syncTimeout,
      ContactIdentities contacts) {
    this.contacts = contacts;
    this.tenants = tenants;
    this.phones = phones;
    this.messages = messages;
    this.media = media;
    this.syncTimeout = syncTimeout;
  }

  @Override
  public String pathPrefix() {
    return "/send/";
  }

  @Override
  public ErrorStyle errorStyle() {
    return ErrorStyle.STATUS_FALSE_JSON;
  }

  @Override
  public void addTo(RoutesConfig routes) {
    routes.post("/send/message-text", ctx -> send(ctx, false));
    routes.post("/send/message-image", ctx -> send(ctx, true));
  }

  private void send(Context ctx, boolean withImage) {
    Instant started = Instant.now();
    RequestFields f = RequestFields.of(ctx);
    String deviceId = f.required("deviceId").strip();
    Device device = device(deviceId);
    Guards.countKey(ctx, device);
    String number =
        phones
            .normalize(f.required("number"))
            // A LID or a BSUID the device met: a CRM replying to the contact_name it was pushed.
            .or(() -> contacts.sendableAddress(device.id(), f.required("number")))
            .orElseThrow(() -> ApiException.fieldNotValid("number", "not a phone number"));
    String text = MessageText.normalize(f.text("message").orElse(""));
    Optional<String> key = f.idempotencyKey(); // a bad key is refused before the fetch
    Optional<MediaRef> file = Optional.empty();
    Optional<String> imageUrl = Optional.empty();
    if (withImage) {
      imageUrl = Optional.of(f.required("imageUrl").strip());
      // Half of a sync call's time for the fetch; the send needs the rest.
      file =
          Optional.of(
              media.fetch("imageUrl", imageUrl.get(), started.plus(syncTimeout.dividedBy(2))));
    } else if (text.isBlank()) {
      throw ApiException.fieldEmpty("message");
    }
    String kind =
        file.map(m -> m.mimeType().startsWith("image/") ? "image" : "file").orElse("text");
    Message m;
    try {
      m =
          messages
              .accept(
                  device,
                  new SendRequest(
                      List.of(Recipient.number(number)),
                      kind,
                      text,
                      "crm",
                      true,
                      false,
                      Duration.ZERO,
                      file,
                      key))
              .getFirst();
    } catch (SendRefused e) {
      throw ApiException.ofRefusal(e, "message");
    }
    SendResult result = messages.awaitFirstOutcome(m, started.plus(syncTimeout), started);
    if (result == SendResult.DEVICE_BUSY) {
      throw ApiException.deviceBusyAfterWait(messages.busyForSeconds(device));
    }
    Map<String, Object> data = new LinkedHashMap<>();
    // Digits without +; a LID or a BSUID as the caller gave it.
    data.put("number", number.startsWith("+") ? number.substring(1) : number);
    data.put("message", text);
    data.put("deviceId", deviceId);
    imageUrl.ifPresent(u -> data.put("imageUrl", u));
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", result == SendResult.SENT);
    body.put(
        "message",
        switch (result) {
          case SENT -> "Message sent";
          case NUMBER_NOT_FOUND -> "Number not found";
          case PHONE_OFFLINE, TIMEOUT -> "phone_offline";
          case FAILED, DEVICE_BUSY -> "Message failed";
        });
    body.put("data", data);
    ctx.json(body);
  }

  private Device device(String deviceId) {
    try {
      return tenants.deviceFor(Tenants.Credential.CRM_ID, deviceId);
    } catch (TenantException e) {
      throw switch (e.reason()) {
        case EXPIRED -> new ApiException(403, "license_expired", e.getMessage());
        case DISABLED -> new ApiException(403, "device_disabled", e.getMessage());
        default -> new ApiException(401, "invalid_device_id", "no device has this deviceId");
      };
    }
  }
}
