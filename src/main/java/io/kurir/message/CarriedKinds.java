package io.kurir.message;

import io.kurir.content.MessageContent;
import io.kurir.content.MessageKind;
import io.kurir.driver.Capabilities;
import io.kurir.driver.Driver;

/**
 * The rule that a device's driver is handed only what it declares it can carry ({@link
 * Driver#capabilities}), checked when a send is accepted, before anything is stored: a kind it
 * cannot carry, a reply, mentions or a group recipient it cannot send is refused at once, never
 * accepted and failed later. A seed family's text, image or file is not subject to it: every driver
 * sends those, as before, and its group sends keep the outcome their driver gives them.
 */
final class CarriedKinds {
  private CarriedKinds() {}

  /**
   * Refuses {@code request} when {@code driver} cannot carry it.
   *
   * @throws SendRefused {@code KIND_NOT_SUPPORTED} or {@code CAPABILITY_NOT_SUPPORTED}, naming the
   *     driver and what it cannot carry
   */
  static void refuseWhatIsNotCarried(Driver driver, SendRequest request) {
    Capabilities can = driver.capabilities();
    if (request.content().isEmpty()) {
      return; // a seed family's text, image or file: every driver sends those
    }
    MessageContent content = request.content().get();
    if (!can.carries(content.kind())) {
      throw kindRefused(driver, content.kind());
    }
    if (content.replyTo().isPresent() && !can.replies()) {
      throw refused(driver, "replies (context.message_id)");
    }
    if (!content.mentions().isEmpty() && !can.mentions()) {
      throw refused(driver, "mentions");
    }
    if (!can.groups() && request.recipients().stream().anyMatch(Recipient::group)) {
      throw refused(driver, "messages to groups");
    }
    driver
        .refusalOf(content)
        .ifPresent(
            why -> {
              throw new SendRefused(
                  SendRefused.Reason.CAPABILITY_NOT_SUPPORTED,
                  "the " + driver.name() + " driver cannot carry this message: " + why);
            });
  }

  private static SendRefused kindRefused(Driver driver, MessageKind kind) {
    return new SendRefused(
        SendRefused.Reason.KIND_NOT_SUPPORTED,
        "the " + driver.name() + " driver cannot carry " + kind.wireName());
  }

  private static SendRefused refused(Driver driver, String what) {
    return new SendRefused(
        SendRefused.Reason.CAPABILITY_NOT_SUPPORTED,
        "the " + driver.name() + " driver cannot carry " + what);
  }
}
