package io.kurir.message;

import io.kurir.content.MessageKind;
import io.kurir.media.ReceivedMedia;
import io.kurir.store.Database;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A device's conversations (issue 29, item 4): its chats, newest first, each with its last message
 * (in or out), its name where the network gave one and its unread count; a chat's messages in and
 * out, newest first; the read mark; and the file of a message, for download. Pages are cut by
 * message id (one id space for both directions, increasing with time), as {@link MessageHistories}
 * cuts its pages.
 *
 * <p>Unread: a chat's incoming messages after the later of the device's last message to it (not an
 * auto-reply) and its read mark ({@link #markRead}). docs/decisions.md, "Conversations".
 *
 * <p>Thread-safe.
 */
public final class Chats {
  private final ChatStore store;
  private final ReceivedMedia received;
  private final MessageHistories histories;

  public Chats(Database db, MessageHistories histories) {
    this.store = new ChatStore(db, histories.store());
    this.received = new ReceivedMedia(db);
    this.histories = histories;
  }

  /**
   * A chat of a device.
   *
   * @param chat the other side: a number (E.164), a group id, or a network id (a LID, a BSUID)
   *     while no phone is known for it
   * @param group whether it is a group
   * @param name the name the network last gave with a message of the (direct) chat
   * @param last its newest message, in or out
   * @param unread its incoming messages not yet read
   */
  public record Chat(
      String chat, boolean group, Optional<String> name, MessageHistories.Entry last, int unread) {}

  /**
   * Up to {@code limit} (at most {@link MessageHistories#MAX_PAGE}) chats of the device whose
   * newest message has an id below {@code before} (a cursor: the last chat's {@code last} id),
   * newest first.
   */
  public List<Chat> chats(long deviceId, Optional<Long> before, int limit) {
    List<Chat> chats = new ArrayList<>();
    for (ChatStore.ChatRow row : store.chats(deviceId, before, clamp(limit))) {
      Optional<MessageHistories.Entry> last = store.message(deviceId, row.lastId());
      if (last.isEmpty()) {
        continue; // not there any more (a crash between the two reads cannot leave one)
      }
      boolean group = isGroup(row.chat());
      chats.add(
          new Chat(
              row.chat(),
              group,
              group ? Optional.empty() : store.name(deviceId, row.chat()),
              last.get(),
              store.unread(deviceId, row.chat())));
    }
    return chats;
  }

  /** The chat's newest message id, its name and unread count, if the device has such a chat. */
  public Optional<Chat> chat(long deviceId, String chat) {
    List<MessageHistories.Entry> newest = store.messages(deviceId, chat, Optional.empty(), 1);
    if (newest.isEmpty()) {
      return Optional.empty();
    }
    boolean group = isGroup(chat);
    return Optional.of(
        new Chat(
            chat,
            group,
            group ? Optional.empty() : store.name(deviceId, chat),
            newest.getFirst(),
            store.unread(deviceId, chat)));
  }

  /**
   * Up to {@code limit} messages of the chat, in and out, with an id below {@code before}, newest
   * first.
   */
  public List<MessageHistories.Entry> messages(
      long deviceId, String chat, Optional<Long> before, int limit) {
    return store.messages(deviceId, chat, before, clamp(limit));
  }

  /** Marks the chat read up to its newest incoming message (a mark never moves back). */
  public void markRead(long deviceId, String chat) {
    store.markRead(deviceId, chat);
  }

  /** The file of a message, as {@link #file} finds it. */
  public sealed interface File permits Kept, Released, NoFile {}

  /** The file is kept: its path, type and name. */
  public record Kept(Path path, String mimeType, String name) implements File {
    /** Its bytes; empty when it was removed since it was found (the sweep got there first). */
    public Optional<byte[]> read() throws java.io.IOException {
      try {
        return Optional.of(java.nio.file.Files.readAllBytes(path));
      } catch (java.nio.file.NoSuchFileException e) {
        return Optional.empty();
      }
    }

    /** {@code Content-Disposition} for it: shown in place, under its name. */
    public String disposition() {
      return "inline; filename=\"" + name.replaceAll("[\"\\\\\r\n]", "_") + "\"";
    }
  }

  /**
   * The message is of a media kind and Kurir keeps its file no more: the retention sweep released
   * it ({@code media.keep-for}), or (an outgoing one sent by link) the network fetched it itself.
   */
  public record Released() implements File {}

  /** The message has no file Kurir keeps (a text, a location, a file sent by link only). */
  public record NoFile() implements File {}

  /**
   * The file of message {@code id} (incoming or outgoing) of one of {@code deviceIds}; empty when
   * none of them has such a message.
   */
  public Optional<File> file(long id, Set<Long> deviceIds) {
    if (deviceIds.isEmpty()) {
      return Optional.empty();
    }
    Optional<ReceivedMedia.IncomingFile> in =
        received.incomingFile(id).filter(f -> deviceIds.contains(f.deviceId()));
    if (in.isPresent()) {
      ReceivedMedia.IncomingFile f = in.get();
      if (f.mimeType().isEmpty()) {
        return Optional.of(new NoFile());
      }
      if (f.path().isEmpty()) {
        return Optional.of(new Released());
      }
      Path path = f.path().get();
      return Optional.of(new Kept(path, f.mimeType().get(), path.getFileName().toString()));
    }
    return histories
        .outgoing(id, deviceIds)
        .map(
            o -> {
              Message m = o.message();
              if (m.media().isPresent()) {
                MediaRef ref = m.media().get();
                return new Kept(ref.path(), ref.mimeType(), ref.name());
              }
              // A media kind with no file kept now: released by the sweep, or never kept (a
              // link the network fetched itself); either way gone for good, as Meta's expired
              // media are.
              return isMedia(m) ? new Released() : new NoFile();
            });
  }

  /** Whether the chat's address is a group's id ({@link GroupIds}' stored form). */
  public static boolean isGroup(String chat) {
    return GroupIds.normalize(chat).filter(chat::equals).isPresent()
        && !chat.startsWith("+")
        && !chat.contains("@");
  }

  private static boolean isMedia(Message m) {
    MessageKind kind = m.asContent().kind();
    return kind == MessageKind.IMAGE
        || kind == MessageKind.VIDEO
        || kind == MessageKind.AUDIO
        || kind == MessageKind.DOCUMENT
        || kind == MessageKind.STICKER;
  }

  private static int clamp(int limit) {
    return Math.min(Math.max(limit, 1), MessageHistories.MAX_PAGE);
  }
}
