package io.kurir.api.eco;

import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.api.ListedValues;
import io.kurir.api.RequestFields;
import io.kurir.api.eco.EcoRoutes.EcoRequest;
import io.kurir.contact.ContactIdentities;
import io.kurir.driver.NumberCheck;
import io.kurir.message.FailureReason;
import io.kurir.message.MediaRef;
import io.kurir.message.Message;
import io.kurir.message.MessageState;
import io.kurir.message.MessageText;
import io.kurir.message.Messages;
import io.kurir.message.Recipient;
import io.kurir.message.SendCommand;
import io.kurir.message.SendResult;
import io.kurir.message.Sends;
import io.kurir.message.Sends.Sent;
import io.kurir.phone.PhoneNumbers;
import io.kurir.tenant.Device;
import io.kurir.time.Timestamps;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Sending text to numbers and looking messages up: parse, one core call, shape the reply. */
public final class EcoMessageHandlers {
  /** Longest {@code pendingTime} accepted: 30 days, in seconds. */
  private static final long MAX_PENDING_SECONDS = 30L * 24 * 3600;

  /** The id a delivery record shows when no message was stored; ids are never 0. */
  private static final String NO_MESSAGE_ID = "0";

  private final Messages messages;
  private final PhoneNumbers phones;
  private final ContactIdentities contacts;
  private final Timestamps timestamps;
  private final EcoResults results;
  private final EcoGroupHandlers groups;
  private final Clock clock;
  private final Sends sends;

  public EcoMessageHandlers(
      Messages messages,
      Sends sends,
      PhoneNumbers phones,
      ContactIdentities contacts,
      Timestamps timestamps,
      Clock clock) {
    this.messages = messages;
    this.sends = sends;
    this.phones = phones;
    this.contacts = contacts;
    this.timestamps = timestamps;
    this.results = new EcoResults(timestamps);
    this.groups = new EcoGroupHandlers(messages, sends, results);
    this.clock = clock;
  }

  /** How long a sync send may wait in all, from the request's arrival. */
  Duration syncTimeout() {
    return sends.syncTimeout();
  }

  /** The group sends, which share this family's results and timeout. */
  public EcoGroupHandlers groups() {
    return groups;
  }

  /**
   * {@code /api/send_message}: one message per comma-separated number; {@code success} only when
   * every one went out, else the first failure in the order given.
   */
  void sendMessage(Context ctx, EcoRequest req) {
    RequestFields f = req.fields();
    List<Optional<String>> numbers = numbers(f.required("phone_no"), req.device());
    sendToNumbers(ctx, req, numbers, "text", text(f), Optional.empty(), true, Instant.now());
  }

  /** {@code /api/async_send_message}: queues one message per number, answers the first id. */
  void asyncSendMessage(Context ctx, EcoRequest req) {
    RequestFields f = req.fields();
    List<Optional<String>> numbers = numbers(f.required("phone_no"), req.device());
    sendToNumbers(ctx, req, numbers, "text", text(f), Optional.empty(), false, Instant.now());
  }

  /**
   * Sends one message per number, the same way for text and media: sync answers {@code success}
   * when every one went out, else the first failure in the order given (or the delivery record with
   * {@code deliveryFlag}); async answers the first id. A list with a number that cannot be read is
   * refused whole ({@link #refusedWhole}): nothing is stored or sent.
   */
  void sendToNumbers(
      Context ctx,
      EcoRequest req,
      List<Optional<String>> numbers,
      String kind,
      String text,
      Optional<MediaRef> media,
      boolean sync,
      Instant started) {
    sendToNumbers(ctx, req, numbers, kind, text, media, Optional.empty(), sync, started);
  }

  /**
   * {@link #sendToNumbers}, for an async media send whose file is fetched from {@code mediaUrl}
   * when its message's turn comes (the caller is answered before).
   */
  void sendToNumbers(
      Context ctx,
      EcoRequest req,
      List<Optional<String>> numbers,
      String kind,
      String text,
      Optional<MediaRef> media,
      Optional<String> mediaUrl,
      boolean sync,
      Instant started) {
    RequestFields f = req.fields();
    Duration delay = pendingTime(f);
    boolean retry = f.flag("flag_retry");
    Optional<String> key = f.idempotencyKey();
    boolean linkPreview = !f.flag("skip_link");
    if (refusedWhole(ctx, req, numbers, sync)) {
      return;
    }
    // A held message (pendingTime) is not waited for, so it queues like an async one.
    Sent sent =
        sends.send(
            req.device(),
            SendCommand.builder("eco")
                .to(numbers.stream().map(n -> Recipient.number(n.get())).toList())
                .kind(kind)
                .body(text)
                .media(media)
                .mediaUrl(sync ? Optional.empty() : mediaUrl)
                .callerWaitsSince(started, sync && delay.isZero())
                .retry(retry)
                .delay(delay)
                .idempotencyKey(key)
                .linkPreview(linkPreview)
                .build());
    if (!sync) {
      plain(ctx, Long.toString(sent.first().id()));
    } else {
      answerOutcomes(ctx, req, sent);
    }
  }

  /**
   * A sync send's answer: {@code success} when every message went out (or is held, not waited for),
   * else the first failure in the order given.
   */
  private void answerOutcomes(Context ctx, EcoRequest req, Sent sent) {
    for (int i = 0; i < sent.messages().size(); i++) {
      SendResult outcome = sent.outcomes().isEmpty() ? SendResult.SENT : sent.outcomes().get(i);
      String result = results.ofSend(outcome, clock.instant());
      if (!result.equals(EcoResults.SUCCESS)) {
        answer(ctx, req, result, Optional.of(sent.messages().get(i)));
        return;
      }
    }
    answer(ctx, req, EcoResults.SUCCESS, Optional.of(sent.first()));
  }

  /**
   * Refuses a list of numbers of which one cannot be read, before anything is stored, fetched or
   * sent, so that a caller who corrects the list and sends again reaches nobody twice. Async: 400
   * {@code phone_no_not_valid}. Sync: the contract's {@code Number not found}, as for a single
   * number that cannot be read. True when refused (and answered).
   */
  boolean refusedWhole(Context ctx, EcoRequest req, List<Optional<String>> numbers, boolean sync) {
    if (numbers.stream().allMatch(Optional::isPresent)) {
      return false;
    }
    if (!sync) {
      throw ApiException.fieldNotValid("phone_no", "phone_no holds a number that is not valid");
    }
    answer(ctx, req, results.numberNotFound(clock.instant()), Optional.empty());
    return true;
  }

  /**
   * A sync send's answer: the result string, or with {@code deliveryFlag} the delivery object. When
   * no message was stored (a number that cannot be read) the object is still there, {@code failed},
   * with id {@code 0}, which is never issued: clients read {@code message.messageId} of every
   * answer and ask {@code check_delivery_status} about it, which then answers {@code not_found}.
   */
  private void answer(Context ctx, EcoRequest req, String result, Optional<Message> shown) {
    if (req.fields().flag("deliveryFlag")) {
      Map<String, Object> reply = new LinkedHashMap<>();
      reply.put("status", result);
      reply.put(
          "message",
          shown.map(m -> deliveryRecord(req, m, false)).orElseGet(this::noMessageRecord));
      ctx.json(reply);
    } else {
      plain(ctx, result);
    }
  }

  /** {@code /api/status_msg_id}: success once sent, phone_offline while not, not_found. */
  void statusMsgId(Context ctx, EcoRequest req) {
    Optional<Message> message =
        find(
            req,
            req.fields()
                .textOf("msg_id", "messageId", "message_id")
                .orElseThrow(() -> ApiException.fieldEmpty("msg_id")));
    if (message.isEmpty()) {
      plain(ctx, EcoResults.NOT_FOUND);
    } else {
      plain(ctx, message.get().state().wentOut() ? EcoResults.SUCCESS : EcoResults.PHONE_OFFLINE);
    }
  }

  /**
   * {@code /api/check_number}: exists, not_exists or unknow. A network id (a LID, a BSUID) is read
   * as one before it could be taken for digits, and the core answers it from what the device met.
   */
  void checkNumber(Context ctx, EcoRequest req) {
    String raw = req.fields().required("phone_no").strip();
    Optional<String> number =
        io.kurir.driver.ContactId.parse(raw)
            .filter(id -> !id.isPhone())
            .map(io.kurir.driver.ContactId::address)
            .or(() -> phones.normalize(raw));
    if (number.isEmpty()) {
      plain(ctx, EcoResults.NOT_EXISTS);
      return;
    }
    NumberCheck check = messages.checkNumber(req.device(), number.get());
    plain(
        ctx,
        switch (check) {
          case EXISTS -> EcoResults.EXISTS;
          case NOT_EXISTS -> EcoResults.NOT_EXISTS;
          case UNKNOWN -> EcoResults.UNKNOWN;
        });
  }

  /** {@code /api/check_delivery_status}: the delivery record of a message. */
  void checkDeliveryStatus(Context ctx, EcoRequest req) {
    String id =
        req.fields()
            .textOf("messageId", "message_id", "msg_id")
            .orElseThrow(() -> ApiException.fieldEmpty("messageId"));
    Optional<Message> message = find(req, id);
    Map<String, Object> reply = new LinkedHashMap<>();
    if (message.isEmpty()) {
      reply.put("status", EcoResults.STATUS_FAILED);
      reply.put("message", EcoResults.NOT_FOUND);
    } else {
      reply.put("status", EcoResults.STATUS_SUCCESS);
      reply.put("message", deliveryRecord(req, message.get(), true));
    }
    ctx.json(reply);
  }

  // --- parsing

  /**
   * The recipients of {@code raw}: numbers in E.164, or a network id (a LID, a BSUID) that the
   * device has met, as where its messages go (the phone when known); empty where an entry is
   * neither (a bad number, an id this device never met).
   */
  List<Optional<String>> numbers(String raw, Device device) {
    // Counted before any number is read: reading them is what costs (issue 13).
    if (ListedValues.moreThan(raw, PhoneNumbers.LIST_SEPARATORS_CHARS, Messages.MAX_RECIPIENTS)) {
      throw ApiException.badRequest(
          "phone_no_too_many", "at most " + Messages.MAX_RECIPIENTS + " recipients per request");
    }
    List<String> parts = PhoneNumbers.parts(raw);
    List<Optional<String>> numbers = new java.util.ArrayList<>(parts.size());
    for (String part : parts) {
      Optional<String> number = phones.normalize(part);
      numbers.add(number.isPresent() ? number : contacts.sendableAddress(device.id(), part));
    }
    if (numbers.isEmpty()) {
      throw ApiException.fieldEmpty("phone_no");
    }
    return numbers;
  }

  static String text(RequestFields f) {
    String text = MessageText.normalize(f.required("message"));
    if (text.isBlank()) {
      throw ApiException.fieldEmpty("message");
    }
    return text;
  }

  static Duration pendingTime(RequestFields f) {
    return Duration.ofSeconds(f.wholeNumber("pendingTime", MAX_PENDING_SECONDS).orElse(0L));
  }

  private Optional<Message> find(EcoRequest req, String rawId) {
    String id = rawId.strip();
    if (!id.matches("\\d{1,18}")) {
      return Optional.empty();
    }
    return messages.find(req.device(), Long.parseLong(id));
  }

  // --- replies

  /**
   * The delivery record, and {@code reason} when its status is {@code failed} (a field the contract
   * does not list; JSON clients ignore it); reloaded so that it shows the state after the outcome.
   */
  private Map<String, Object> deliveryRecord(EcoRequest req, Message m, boolean withContent) {
    Message now = messages.find(req.device(), m.id()).orElse(m);
    Map<String, Object> record = new LinkedHashMap<>();
    record.put("messageId", Long.toString(now.id()));
    record.put("sentDate", now.sentAt().map(timestamps::reply).orElse(null));
    record.put("status", deliveryStatus(now));
    record.put("statusDate", timestamps.reply(now.statusAt()));
    if (withContent) {
      record.put("content", now.body());
    }
    now.failureReason().ifPresent(reason -> record.put("reason", reason)); // only when failed
    return record;
  }

  /**
   * The record's {@code status}: the message's state, except that a number the network says does
   * not exist reads {@code not_exists}, as {@code check_number} says it: the public client that
   * files these records filters on that word. Any other failure stays {@code failed}.
   */
  private static String deliveryStatus(Message m) {
    // A reason is there only while the message is failed: a retried one waiting is pending.
    boolean notOnTheNetwork =
        m.failureReason().filter(FailureReason.NUMBER_NOT_FOUND::equals).isPresent();
    return notOnTheNetwork ? EcoResults.NOT_EXISTS : m.state().wireName();
  }

  /** The delivery record of a send that stored no message. */
  private Map<String, Object> noMessageRecord() {
    Map<String, Object> record = new LinkedHashMap<>();
    record.put("messageId", NO_MESSAGE_ID);
    record.put("sentDate", null);
    record.put("status", MessageState.FAILED.wireName());
    record.put("statusDate", timestamps.reply(clock.instant()));
    return record;
  }

  /**
   * Answers a result string, of the type every reply starts with ({@link
   * io.kurir.api.HttpApi#PLAIN_UTF8}). Written to the response's buffer at once (Jetty sends it
   * with its length as the call ends): a result left to Javalin is copied through a 32 KB array
   * made for each reply, and asks for an ETag. Only a 200 is answered so, which no error handler
   * writes over.
   */
  static void plain(Context ctx, String body) {
    byte[] bytes = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    try {
      ctx.res().getOutputStream().write(bytes);
    } catch (java.io.IOException callerGone) {
      // Nobody reads the answer; what the call did stands, as when Javalin's own write fails.
    }
  }
}
