package io.kurir.api.v1;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.api.RemoteMedia;
import io.kurir.api.RequestFields;
import io.kurir.contact.ContactIdentities;
import io.kurir.message.GroupIds;
import io.kurir.message.MediaRef;
import io.kurir.message.Message;
import io.kurir.message.MessageEvent;
import io.kurir.message.MessageHistories;
import io.kurir.message.MessageText;
import io.kurir.message.Recipient;
import io.kurir.message.SendCommand;
import io.kurir.message.Sends;
import io.kurir.phone.PhoneNumbers;
import io.kurir.tenant.ApiCaller;
import io.kurir.tenant.Device;
import io.kurir.tenant.Tenants;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code POST /v1/messages}: reads the message object ({@link V1MessageBody}), picks the device (a
 * device key's own; a license key's only device, or the one {@code device} names), reads the
 * recipient as the Eco API does, and sends through {@link Sends}, the one send of every family.
 * Answers 201 with the message at once ({@code pending}), or with {@code ?wait=<duration>} after
 * its first outcome, as a sync send.
 */
final class V1SendHandler {
  private static final Pattern WAIT = Pattern.compile("(\\d{1,6})(ms|s|m)?");

  private final Tenants tenants;
  private final Sends sends;
  private final PhoneNumbers phones;
  private final ContactIdentities contacts;
  private final RemoteMedia media;
  private final MessageHistories histories;

  V1SendHandler(
      Tenants tenants,
      Sends sends,
      PhoneNumbers phones,
      ContactIdentities contacts,
      RemoteMedia media,
      MessageHistories histories) {
    this.tenants = tenants;
    this.sends = sends;
    this.phones = phones;
    this.contacts = contacts;
    this.media = media;
    this.histories = histories;
  }

  void send(Context ctx) {
    Instant started = Instant.now();
    RequestFields f = RequestFields.of(ctx);
    V1MessageBody body = V1MessageBody.parse(f, jsonBody(ctx));
    Optional<Duration> wait = wait(ctx);
    Optional<String> key = f.idempotencyKey();
    Device device =
        tenants.usableDeviceForRequest(device(V1Routes.caller(ctx), body.device()).id());
    Recipient to = recipient(device, body);
    if (body.content().isPresent()) {
      SendCommand command =
          SendCommand.builder("v1")
              .to(to)
              .content(body.content().get())
              .idempotencyKey(key)
              .callerWaitsSince(started, wait.isPresent())
              .build();
      answer(ctx, device, sends.send(device, command, wait.orElse(Duration.ZERO)), wait);
      return;
    }
    String text = MessageText.normalize(body.text());
    if (body.type().equals("text") && text.isBlank()) {
      throw ApiException.fieldEmpty("text.body");
    }
    // The file is fetched before the answer when the caller waits, or when it names the file
    // (the name travels with the kept file); else when the message's turn comes.
    Optional<MediaRef> file = Optional.empty();
    Optional<String> link = body.link();
    if (link.isPresent() && (wait.isPresent() || body.filename().isPresent())) {
      MediaRef kept =
          media.fetch(
              body.type() + ".link", link.get(), started.plus(sends.syncTimeout().dividedBy(2)));
      file =
          Optional.of(
              body.filename().map(n -> new MediaRef(n, kept.mimeType(), kept.path())).orElse(kept));
      link = Optional.empty();
    }
    SendCommand command =
        SendCommand.builder("v1")
            .to(to)
            .kind(body.kind())
            .body(text)
            .media(file)
            .mediaUrl(link)
            .idempotencyKey(key)
            .callerWaitsSince(started, wait.isPresent())
            .build();
    answer(ctx, device, sends.send(device, command, wait.orElse(Duration.ZERO)), wait);
  }

  /** 201 with the message as it stands: pending, or its outcome when the caller waited. */
  void answer(Context ctx, Device device, Sends.Sent sent, Optional<Duration> wait) {
    Message m = sent.first();
    MessageHistories.Outgoing shown =
        wait.isPresent()
            ? histories.outgoing(m.id(), Set.of(device.id())).orElseThrow()
            : new MessageHistories.Outgoing(
                m,
                Optional.empty(),
                List.of(new MessageEvent(m.state(), Optional.empty(), m.createdAt())));
    ctx.status(201).json(V1MessageHandlers.view(shown));
  }

  /**
   * The request's body as JSON, when it is a JSON object, whatever its {@code Content-Type} says
   * ({@code curl -d} sends JSON labelled as a form, and {@link RequestFields} reads it so too); a
   * form body carries the seed's kinds only.
   */
  private static Optional<JsonNode> jsonBody(Context ctx) {
    String body = io.kurir.api.RequestBody.text(ctx).stripLeading();
    if (!body.startsWith("{")) {
      return Optional.empty();
    }
    try {
      return Optional.ofNullable(JSON.readTree(body)).filter(JsonNode::isObject);
    } catch (java.io.IOException e) {
      return Optional.empty(); // RequestFields has answered a body that is not JSON already
    }
  }

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();

  /**
   * The device to send from: a device key's own (naming another is refused), else the license's
   * device that {@code named} names by id or number, or its only one.
   */
  Device device(ApiCaller caller, Optional<String> named) {
    if (caller.device().isPresent()) {
      Device own = caller.device().get();
      if (named.isPresent() && !names(own, named.get())) {
        throw new ApiException(
            403, "device_not_allowed", "a device's key sends from that device only");
      }
      return own;
    }
    List<Device> devices = caller.devices(tenants);
    if (named.isPresent()) {
      return devices.stream()
          .filter(d -> names(d, named.get()))
          .findFirst()
          .orElseThrow(() -> new ApiException(404, "device_not_found", "no device " + named.get()));
    }
    if (devices.size() == 1) {
      return devices.getFirst();
    }
    if (devices.isEmpty()) {
      throw new ApiException(422, "no_device", "the license has no device to send from");
    }
    throw new ApiException(
        400,
        "device_empty",
        "the license has " + devices.size() + " devices: name one in device (its id or number)");
  }

  /** Whether {@code named} is the device's id or its number, written as customers write one. */
  private boolean names(Device d, String named) {
    return named.equals(Long.toString(d.id()))
        || phones.normalize(named).map(n -> n.equals(d.number())).orElse(false);
  }

  /** A group by id, else a number as the Eco API reads it, or a LID or BSUID the device met. */
  private Recipient recipient(Device device, V1MessageBody body) {
    if (body.group()) {
      return new Recipient(
          GroupIds.normalize(body.to())
              .orElseThrow(() -> ApiException.fieldNotValid("to", "not a group id")),
          true);
    }
    return Recipient.number(
        phones
            .normalize(body.to())
            .or(() -> contacts.sendableAddress(device.id(), body.to()))
            .orElseThrow(() -> ApiException.fieldNotValid("to", "not a phone number")));
  }

  /** {@code ?wait=10s} (also {@code 500ms}, {@code 1m}, or plain seconds); empty when absent. */
  static Optional<Duration> wait(Context ctx) {
    String raw = ctx.queryParam("wait");
    if (raw == null || raw.isBlank()) {
      return Optional.empty();
    }
    Matcher m = WAIT.matcher(raw.strip());
    if (!m.matches()) {
      throw ApiException.fieldNotValid("wait", "wait is a duration such as 10s, 500ms or 1m");
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "s" : m.group(2);
    return Optional.of(
        switch (unit) {
          case "ms" -> Duration.ofMillis(n);
          case "m" -> Duration.ofMinutes(n);
          default -> Duration.ofSeconds(n);
        });
  }
}
