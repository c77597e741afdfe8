package io.kurir.api.eco;

import static io.kurir.api.eco.EcoMessageHandlers.plain;

import io.javalin.http.Context;
import io.kurir.api.RequestFields;
import io.kurir.api.eco.EcoRoutes.EcoRequest;
import io.kurir.driver.GroupMembers;
import io.kurir.message.GroupIds;
import io.kurir.message.MediaRef;
import io.kurir.message.Messages;
import io.kurir.message.Recipient;
import io.kurir.message.SendCommand;
import io.kurir.message.Sends;
import io.kurir.message.Sends.Sent;
import java.time.Instant;
import java.util.Optional;

/** Sending text to groups, by name or id, and listing a group's members. */
public final class EcoGroupHandlers {
  private final Messages messages;
  private final EcoResults results;
  private final Sends sends;

  public EcoGroupHandlers(Messages messages, Sends sends, EcoResults results) {
    this.messages = messages;
    this.sends = sends;
    this.results = results;
  }

  /** {@code /api/send_group}: by {@code group_name}. */
  void sendGroup(Context ctx, EcoRequest req) {
    sendByName(ctx, req, true);
  }

  /** {@code /api/async_send_group}: by {@code group_name}; answers the message id. */
  void asyncSendGroup(Context ctx, EcoRequest req) {
    sendByName(ctx, req, false);
  }

  private void sendByName(Context ctx, EcoRequest req, boolean sync) {
    String name = req.fields().required("group_name");
    String text = EcoMessageHandlers.text(req.fields());
    if (!messages.isConnected(req.device())) {
      plain(ctx, EcoResults.PHONE_OFFLINE); // the name cannot be looked up without the phone
      return;
    }
    Optional<String> group = messages.groupIdByName(req.device(), name);
    if (sync) {
      sendAndWait(ctx, req, group, "text", text, Optional.empty(), Instant.now());
    } else {
      queue(ctx, req, group, "text", text, Optional.empty());
    }
  }

  /** {@code /api/send_message_group_id}. */
  void sendMessageGroupId(Context ctx, EcoRequest req) {
    Optional<String> group = GroupIds.normalize(req.fields().required("group_id"));
    sendAndWait(
        ctx,
        req,
        group,
        "text",
        EcoMessageHandlers.text(req.fields()),
        Optional.empty(),
        Instant.now());
  }

  /** {@code /api/async_send_message_group_id}: answers the message id. */
  void asyncSendMessageGroupId(Context ctx, EcoRequest req) {
    Optional<String> group = GroupIds.normalize(req.fields().required("group_id"));
    queue(ctx, req, group, "text", EcoMessageHandlers.text(req.fields()), Optional.empty());
  }

  /** {@code /api/getGroupMember}: comma-separated numbers, {@code n,o,n,e} or {@code failed}. */
  void getGroupMember(Context ctx, EcoRequest req) {
    Optional<String> group = GroupIds.normalize(req.fields().required("group_id"));
    if (group.isEmpty()) {
      plain(ctx, EcoResults.NO_MEMBERS);
      return;
    }
    switch (messages.groupMembers(req.device(), group.get())) {
      case GroupMembers.Members m ->
          plain(
              ctx,
              String.join(
                  ",",
                  m.numbers().stream()
                      .map(n -> n.startsWith("+") ? n.substring(1) : n) // a LID stays as it is
                      .toList()));
      case GroupMembers.NotFound notFound -> plain(ctx, EcoResults.NO_MEMBERS);
      case GroupMembers.NotSupported notSupported -> plain(ctx, EcoResults.FAILED);
      case GroupMembers.Unknown unknown -> plain(ctx, EcoResults.PHONE_OFFLINE);
    }
  }

  /** Sends one message to a group and answers its outcome as the group result string. */
  void sendAndWait(
      Context ctx,
      EcoRequest req,
      Optional<String> group,
      String kind,
      String text,
      Optional<MediaRef> media,
      Instant started) {
    if (group.isEmpty()) {
      plain(ctx, EcoResults.GROUP_NOT_FOUND);
      return;
    }
    Sent sent = send(req, toGroup(req, group.get(), kind, text, media).callerWaitsSince(started));
    plain(ctx, results.ofGroupSend(sent.firstOutcome()));
  }

  /** Queues one message to a group and answers its id. */
  void queue(
      Context ctx,
      EcoRequest req,
      Optional<String> group,
      String kind,
      String text,
      Optional<MediaRef> media) {
    queue(ctx, req, group, kind, text, media, Optional.empty());
  }

  /** {@link #queue}, with the file still to fetch from {@code mediaUrl} when its turn comes. */
  void queue(
      Context ctx,
      EcoRequest req,
      Optional<String> group,
      String kind,
      String text,
      Optional<MediaRef> media,
      Optional<String> mediaUrl) {
    if (group.isEmpty()) {
      plain(ctx, EcoResults.GROUP_NOT_FOUND);
      return;
    }
    Sent sent = send(req, toGroup(req, group.get(), kind, text, media).mediaUrl(mediaUrl));
    plain(ctx, Long.toString(sent.first().id()));
  }

  /** A send of one message to the group, with the request's retry flag and idempotency key. */
  private static SendCommand.Builder toGroup(
      EcoRequest req, String groupId, String kind, String text, Optional<MediaRef> media) {
    RequestFields f = req.fields();
    return SendCommand.builder("eco")
        .to(new Recipient(groupId, true))
        .kind(kind)
        .body(text)
        .media(media)
        .retry(f.flag("flag_retry"))
        .idempotencyKey(f.idempotencyKey());
  }

  private Sent send(EcoRequest req, SendCommand.Builder command) {
    return sends.send(req.device(), command.build());
  }
}
