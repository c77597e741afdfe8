package io.kurir.campaign;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kurir.content.CloudMessageJson;
import io.kurir.content.MessageKind;
import io.kurir.driver.Drivers;
import io.kurir.tenant.Device;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * Whether a device of a campaign's pool can carry its messages: the device's driver declares the
 * kinds it carries ({@link io.kurir.driver.Capabilities}), and a campaign's send, accepted without
 * a caller waiting, must not reach a driver that would fail each recipient for it.
 *
 * <p>Stateless and thread-safe.
 */
final class CampaignDevices {
  private CampaignDevices() {}

  /**
   * Whether the device sends only templates to people who may not have written to it: its network's
   * free-form messages reach only those who wrote in the last 24 hours (the Cloud API, {@link
   * io.kurir.driver.Driver#freeFormOnlyInReplyWindow}). False for a device whose driver this
   * gateway has not loaded (it takes no recipients for that reason).
   */
  static boolean templatesOnly(Drivers drivers, Device device) {
    return drivers.names().contains(device.driver())
        && drivers.of(device.ref()).freeFormOnlyInReplyWindow();
  }

  /**
   * Whether the device would need a template the campaign does not have: it sends only templates
   * ({@link #templatesOnly}), the campaign names none, and its message is not itself a template.
   * Such a device is refused in a campaign's pool when it is made, and left out of it when it runs
   * (one enabled since): sending it free-form would fail most recipients outside the network's
   * reply window.
   */
  static boolean lacksTemplate(
      Drivers drivers, Device device, boolean template, Set<MessageKind> kinds) {
    return templatesOnly(drivers, device)
        && !template
        && !kinds.equals(EnumSet.of(MessageKind.TEMPLATE));
  }

  /**
   * The kinds the device sends of the campaign: its template's on a Cloud API device when the
   * campaign has one, else those of the message and its variants.
   */
  static Set<MessageKind> kindsFor(
      Drivers drivers,
      Device device,
      ObjectNode message,
      java.util.List<ObjectNode> variants,
      boolean template) {
    return templatesOnly(drivers, device) && template
        ? EnumSet.of(MessageKind.TEMPLATE)
        : kinds(message, variants);
  }

  /** The kinds of the campaign's message and its variants. */
  static Set<MessageKind> kinds(ObjectNode message, java.util.List<ObjectNode> variants) {
    Set<MessageKind> kinds = EnumSet.noneOf(MessageKind.class);
    kinds.add(CloudMessageJson.parse(message).kind());
    variants.forEach(v -> kinds.add(CloudMessageJson.parse(v).kind()));
    return kinds;
  }

  /**
   * A kind of {@code kinds} that the device's driver does not carry, if any; empty as well for a
   * device whose driver this gateway has not loaded (it takes no recipients for that reason).
   */
  static Optional<MessageKind> notCarried(Drivers drivers, Device device, Set<MessageKind> kinds) {
    if (!drivers.names().contains(device.driver())) {
      return Optional.empty();
    }
    var can = drivers.of(device.ref()).capabilities();
    return kinds.stream().filter(k -> !can.carries(k)).findFirst();
  }
}
