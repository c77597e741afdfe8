package io.kurir.api.console;

import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.content.Content;
import io.kurir.content.MessageKind;
import io.kurir.message.Chats;
import io.kurir.message.GroupIds;
import io.kurir.message.Message;
import io.kurir.message.MessageHistories;
import io.kurir.message.Recipient;
import io.kurir.message.SendCommand;
import io.kurir.tenant.Device;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * A device's conversations in the console, for operators ({@code /console/devices/{id}/chats}) and
 * customers ({@code /console/my/devices/{id}/chats}): its chats, newest first; a chat's messages in
 * and out (images shown through the console's own media route, documents and other files as
 * downloads, locations, contact cards and reactions in words); and a text reply from the page,
 * through the same send command as Kurir's API. Opening a chat marks it read.
 */
final class ChatPages {
  private static final int PAGE = 50;

  private final ConsoleDeps deps;

  ChatPages(ConsoleDeps deps) {
    this.deps = deps;
  }

  /** Which device a page is of and where its pages are, for one kind of viewer. */
  record Side(String prefix, BiFunction<Context, ConsoleRoutes.Viewer, Device> device) {
    String base(Device d) {
      return prefix + d.id();
    }
  }

  /** A chat of the list. */
  record ChatRow(
      String href, String title, String subtitle, String preview, String when, int unread) {}

  /** The list of a device's chats. */
  record ListView(String back, List<ChatRow> chats, Optional<String> older) {}

  /** A message of a chat, as the page draws it. */
  record Line(
      String id,
      boolean in,
      String kind,
      String who,
      String when,
      String text,
      Optional<String> status,
      Optional<String> image,
      Optional<String> download,
      String fileName) {}

  /** A chat's page: its messages oldest first (the newest at the bottom), the reply form. */
  record ChatView(
      String back,
      String title,
      List<Line> lines,
      Optional<String> older,
      String replyAction,
      String csrf) {}

  void list(Context ctx, ConsoleRoutes.Viewer v, Side side) {
    Device d = side.device().apply(ctx, v);
    String base = side.base(d);
    Optional<Long> before = Pages.query(ctx, "before").flatMap(ChatPages::number);
    List<Chats.Chat> page = deps.chats().chats(d.id(), before, PAGE + 1);
    List<ChatRow> rows = new ArrayList<>();
    for (Chats.Chat c : page.subList(0, Math.min(PAGE, page.size()))) {
      rows.add(
          new ChatRow(
              base + "/chats/" + path(c.chat()),
              c.name().orElse(c.chat()),
              c.name().isPresent() ? c.chat() : (c.group() ? "group" : ""),
              (c.last() instanceof MessageHistories.Outgoing ? "You: " : "")
                  + Pages.shortened(preview(content(c.last()))),
              deps.timestamps().reply(at(c.last())),
              c.unread()));
    }
    Optional<String> older =
        page.size() > PAGE
            ? Optional.of(base + "/chats?before=" + page.get(PAGE - 1).last().messageId())
            : Optional.empty();
    page(
        ctx,
        v,
        side,
        "Conversations of " + d.number(),
        "chats.jte",
        new ListView(base, rows, older));
  }

  void chat(Context ctx, ConsoleRoutes.Viewer v, Side side) {
    Device d = side.device().apply(ctx, v);
    String base = side.base(d);
    String chat = chat(ctx);
    Optional<Long> before = Pages.query(ctx, "before").flatMap(ChatPages::number);
    List<MessageHistories.Entry> page = deps.chats().messages(d.id(), chat, before, PAGE + 1);
    if (page.isEmpty() && before.isEmpty()) {
      throw ApiException.notFound("No such chat.");
    }
    if (before.isEmpty()) {
      deps.chats().markRead(d.id(), chat); // the console's user has now seen it
    }
    List<Line> lines = new ArrayList<>();
    for (MessageHistories.Entry e : page.subList(0, Math.min(PAGE, page.size()))) {
      lines.add(line(base, e));
    }
    java.util.Collections.reverse(lines);
    Optional<String> title =
        deps.chats().chat(d.id(), chat).flatMap(Chats.Chat::name).map(n -> n + " · " + chat);
    String here = base + "/chats/" + path(chat);
    Optional<String> older =
        page.size() > PAGE
            ? Optional.of(here + "?before=" + page.get(PAGE - 1).messageId())
            : Optional.empty();
    page(
        ctx,
        v,
        side,
        title.orElse(chat),
        "chat.jte",
        new ChatView(base + "/chats", title.orElse(chat), lines, older, here + "/reply", v.csrf()));
  }

  /** A text reply from the chat's page, as the console's user, through the send command. */
  void reply(Context ctx, ConsoleRoutes.Viewer v, Side side) {
    Device d = deps.tenants().usableDevice(side.device().apply(ctx, v).id());
    String chat = chat(ctx);
    String text = Pages.required(ctx, "text", "the reply");
    Recipient to = Chats.isGroup(chat) ? new Recipient(chat, true) : Recipient.number(chat);
    deps.sends()
        .send(d, SendCommand.builder("console").to(to).kind("text").body(text).build())
        .first();
    Pages.seeOther(ctx, side.base(d) + "/chats/" + path(chat));
  }

  /** The file of a message of the device, for the chat page's images and downloads. */
  void media(Context ctx, ConsoleRoutes.Viewer v, Side side) throws IOException {
    Device d = side.device().apply(ctx, v);
    long id = Pages.id(ctx, "message");
    Chats.File file = deps.chats().file(id, Set.of(d.id())).orElse(new Chats.NoFile());
    switch (file) {
      case Chats.Kept kept -> {
        byte[] bytes = kept.read().orElseThrow(ChatPages::gone);
        ctx.header("Content-Disposition", kept.disposition());
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.contentType(kept.mimeType()).result(bytes);
      }
      case Chats.Released r -> throw gone();
      case Chats.NoFile n -> throw ApiException.notFound("No such file.");
    }
  }

  private static ApiException gone() {
    return new ApiException(
        410, "media_expired", "This file is no longer kept (the retention period has passed).");
  }

  private void page(
      Context ctx, ConsoleRoutes.Viewer v, Side side, String title, String template, Object view) {
    if (side.prefix().startsWith("/console/my/")) {
      Pages.customer(ctx, v, title, template, view);
    } else {
      Pages.operator(ctx, v, title, template, view);
    }
  }

  private Line line(String base, MessageHistories.Entry e) {
    Content content = content(e);
    String id = Long.toString(e.messageId());
    boolean kept =
        switch (e) {
          case MessageHistories.Outgoing o -> o.message().media().isPresent();
          case MessageHistories.Incoming i -> i.mediaKept();
        };
    Optional<String> file = kept ? Optional.of(base + "/media/" + id) : Optional.empty();
    boolean picture = content.kind() == MessageKind.IMAGE || content.kind() == MessageKind.STICKER;
    String who;
    Optional<String> status;
    switch (e) {
      case MessageHistories.Outgoing o -> {
        who = "You";
        Message m = o.message();
        status = Optional.of(m.state().wireName());
      }
      case MessageHistories.Incoming i -> {
        who = i.senderName().map(n -> n + " (" + i.from() + ")").orElse(i.from());
        status = Optional.empty();
      }
    }
    return new Line(
        id,
        e instanceof MessageHistories.Incoming,
        content.kind().wireName(),
        who,
        deps.timestamps().reply(at(e)),
        words(content),
        status,
        picture ? file : Optional.empty(),
        picture ? Optional.empty() : file,
        fileName(content, id));
  }

  /** What a message says, in words, for kinds that are not only a picture or a file. */
  private static String words(Content c) {
    return switch (c) {
      case Content.Text t -> t.body();
      case Content.Location l ->
          "Location: "
              + String.join(
                  ", ",
                  java.util.stream.Stream.of(l.name(), l.address())
                      .filter(s -> s != null && !s.isBlank())
                      .toList())
              + " ("
              + l.latitude()
              + ", "
              + l.longitude()
              + ")";
      case Content.Contacts k -> "Contact card: " + k.summary();
      case Content.Reaction r ->
          r.emoji().isEmpty()
              ? "Removed a reaction from message " + r.messageId()
              : "Reacted " + r.emoji() + " to message " + r.messageId();
      case Content.Audio a -> a.voice() ? "Voice note" : "Audio";
      case Content.Sticker s -> "";
      default -> c.summary() == null ? "" : c.summary();
    };
  }

  private static String preview(Content c) {
    String w = words(c).strip();
    return w.isEmpty() ? "[" + c.kind().wireName() + "]" : w;
  }

  private static String fileName(Content c, String id) {
    if (c instanceof Content.Document doc && doc.filename() != null && !doc.filename().isBlank()) {
      return doc.filename();
    }
    return c.kind().wireName() + " " + id;
  }

  private static Content content(MessageHistories.Entry e) {
    return switch (e) {
      case MessageHistories.Outgoing o -> o.message().asContent().content();
      case MessageHistories.Incoming i -> i.content().content();
    };
  }

  private static java.time.Instant at(MessageHistories.Entry e) {
    return switch (e) {
      case MessageHistories.Outgoing o -> o.message().createdAt();
      case MessageHistories.Incoming i -> i.receivedAt();
    };
  }

  /** The chat in the path: as the list wrote it (a number, a group id, a LID or BSUID). */
  private static String chat(Context ctx) {
    String chat = ctx.pathParam("chat").strip();
    if (chat.isEmpty()) {
      throw ApiException.notFound("No such chat.");
    }
    return GroupIds.normalize(chat).orElse(chat.matches("\\d{5,20}") ? "+" + chat : chat);
  }

  /** A chat as a path segment. */
  private static String path(String chat) {
    return URLEncoder.encode(chat, StandardCharsets.UTF_8).replace("+", "%2B");
  }

  private static Optional<Long> number(String v) {
    return v.matches("\\d{1,18}") ? Optional.of(Long.parseLong(v)) : Optional.empty();
  }
}
