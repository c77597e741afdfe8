package io.kurir.api.crm;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.api.ErrorCatalogue;
import io.kurir.api.ErrorStyle;
import io.kurir.api.Guards;
import io.kurir.api.RemoteMedia;
import io.kurir.api.RequestFields;
import io.kurir.api.RouteTable;
import io.kurir.contact.ContactIdentities;
import io.kurir.message.MediaRef;
import io.kurir.message.MessageText;
import io.kurir.message.Recipient;
import io.kurir.message.SendCommand;
import io.kurir.message.SendResult;
import io.kurir.message.Sends;
import io.kurir.phone.PhoneNumbers;
import io.kurir.tenant.Device;
import io.kurir.tenant.Tenants;
import java.time.Instant;
import java.util.LinkedHashMap;
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
  private final Sends sends;
  private final RemoteMedia media;

  /** The CRM API's answers to a refused deviceId or send, in its {@code status: false} style. */
  private static final ErrorCatalogue ERRORS =
      ErrorCatalogue.builder()
          .credentialRefusals("device_disabled", "invalid_device_id", "no device has this deviceId")
          .sendRefusals("message")
          .build();

  public CrmRoutes(
      Tenants tenants,
      PhoneNumbers phones,
      Sends sends,
      RemoteMedia media,
      ContactIdentities contacts) {
    this.contacts = contacts;
    this.tenants = tenants;
    this.phones = phones;
    this.sends = sends;
    this.media = media;
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
  public ErrorCatalogue errors() {
    return ERRORS;
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
    Device device = tenants.deviceFor(Tenants.Credential.CRM_ID, deviceId);
    Guards.countKey(ctx, device);
    String number = number(device, f);
    String text = MessageText.normalize(f.text("message").orElse(""));
    Optional<String> key = f.idempotencyKey(); // a bad key is refused before the fetch
    Optional<MediaRef> file = Optional.empty();
    Optional<String> imageUrl = Optional.empty();
    if (withImage) {
      imageUrl = Optional.of(f.required("imageUrl").strip());
      // Half of a sync call's time for the fetch; the send needs the rest.
      file =
          Optional.of(
              media.fetch(
                  "imageUrl", imageUrl.get(), started.plus(sends.syncTimeout().dividedBy(2))));
    } else if (text.isBlank()) {
      throw ApiException.fieldEmpty("message");
    }
    SendResult result =
        sends
            .send(
                device,
                SendCommand.builder("crm")
                    .to(Recipient.number(number))
                    .kind(
                        file.map(m -> m.mimeType().startsWith("image/") ? "image" : "file")
                            .orElse("text"))
                    .body(text)
                    .media(file)
                    .idempotencyKey(key)
                    .callerWaitsSince(started)
                    .build())
            .firstOutcome();
    ctx.json(reply(result, number, text, deviceId, imageUrl));
  }

  /**
   * A number, or a LID or a BSUID the device met: a CRM replying to the contact_name it was pushed.
   */
  private String number(Device device, RequestFields f) {
    return phones
        .normalize(f.required("number"))
        .or(() -> contacts.sendableAddress(device.id(), f.required("number")))
        .orElseThrow(() -> ApiException.fieldNotValid("number", "not a phone number"));
  }

  /** {@code {status, message, data{number, message, deviceId[, imageUrl]}}}. */
  private static Map<String, Object> reply(
      SendResult result, String number, String text, String deviceId, Optional<String> imageUrl) {
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
    return body;
  }
}
