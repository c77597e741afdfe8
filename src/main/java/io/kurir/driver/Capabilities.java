package io.kurir.driver;

import io.kurir.content.MessageKind;
import java.util.EnumSet;
import java.util.Set;

/**
 * What a driver can carry, declared by the driver ({@link Driver#capabilities}) and read by the
 * core, which refuses at once a message its device's driver cannot carry instead of accepting it
 * and failing it later. A capability is declared only where the driver does it: a network that has
 * edits, say, but a driver with no operation for them yet declares none.
 *
 * @param kinds the kinds of message it sends ({@code reaction} included: reactions)
 * @param groups whether it sends to groups
 * @param replies whether it sends a message as a reply to another ({@code context.message_id})
 * @param mentions whether it notifies the people a message mentions
 * @param edits whether it edits a sent message
 * @param revoke whether it deletes a sent message for everyone
 * @param presence whether it shows the device typing
 * @param markRead whether it marks a chat's messages read
 */
public record Capabilities(
    Set<MessageKind> kinds,
    boolean groups,
    boolean replies,
    boolean mentions,
    boolean edits,
    boolean revoke,
    boolean presence,
    boolean markRead) {

  public Capabilities {
    kinds = kinds.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(kinds));
  }

  /**
   * What a driver that reads only a message's kind, text and file carries of Kurir's own API: plain
   * text, to numbers and groups. The default of {@link Driver}. The seed families' text, image and
   * file messages are not subject to the declaration: every driver sends them, as before drivers
   * declared capabilities.
   */
  public static final Capabilities TEXT_ONLY =
      new Capabilities(
          EnumSet.of(MessageKind.TEXT), true, false, false, false, false, false, false);

  /** Whether it sends messages of kind {@code kind}. */
  public boolean carries(MessageKind kind) {
    return kinds.contains(kind);
  }

  /** Whether it puts and takes away reactions. */
  public boolean reactions() {
    return kinds.contains(MessageKind.REACTION);
  }

  /** The same, carrying exactly {@code newKinds}. */
  public Capabilities withKinds(Set<MessageKind> newKinds) {
    return new Capabilities(newKinds, groups, replies, mentions, edits, revoke, presence, markRead);
  }
}
