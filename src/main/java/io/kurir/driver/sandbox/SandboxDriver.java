package io.kurir.driver.sandbox;

import io.kurir.driver.ActionOutcome;
import io.kurir.driver.Capabilities;
import io.kurir.driver.ChatRef;
import io.kurir.driver.ContactDirectory;
import io.kurir.driver.DeviceRef;
import io.kurir.driver.DeviceState;
import io.kurir.driver.Driver;
import io.kurir.driver.DriverListener;
import io.kurir.driver.GroupMembers;
import io.kurir.driver.NumberCheck;
import io.kurir.driver.OutgoingMessage;
import io.kurir.driver.SendOutcome;
import io.kurir.driver.SimulatedPhones;
import java.util.Optional;

/** The driver of devices on the {@link SandboxNetwork}. Thread-safe. */
public final class SandboxDriver implements Driver, SimulatedPhones {
  private final SandboxNetwork network;
  private final boolean ownsNetwork;
  private final boolean controlApi;
  private final ContactDirectory contacts;

  /**
   * @param ownsNetwork whether the network ends with this driver (else it outlives it: restart
   *     tests, where the "phones" must survive the gateway)
   * @param controlApi whether the {@code /sandbox/} control API is served
   * @param contacts what the core knows of each device's contacts, taught what checks reveal
   */
  SandboxDriver(
      SandboxNetwork network, boolean ownsNetwork, boolean controlApi, ContactDirectory contacts) {
    this.network = network;
    this.ownsNetwork = ownsNetwork;
    this.controlApi = controlApi;
    this.contacts = contacts;
  }

  boolean controlApi() {
    return controlApi;
  }

  public SandboxNetwork network() {
    return network;
  }

  @Override
  public boolean scanCurrentCode(DeviceRef device) {
    return network.scanCurrentCode(device);
  }

  @Override
  public String name() {
    return SandboxDriverFactory.NAME;
  }

  private volatile DriverListener listener;

  @Override
  public void start(DriverListener newListener) {
    this.listener = newListener;
    network.attach(newListener);
  }

  @Override
  public boolean isConnected(DeviceRef device) {
    return network.isConnected(device.id());
  }

  @Override
  public boolean deduplicates() {
    return network.deduplicates();
  }

  /**
   * Everything a message can be: every kind, to numbers and groups, replies and mentions; edits,
   * revoke, typing and read marks, which the phones' inboxes show.
   */
  @Override
  public Capabilities capabilities() {
    return CAPABILITIES;
  }

  private static final Capabilities CAPABILITIES =
      new Capabilities(
          java.util.EnumSet.allOf(io.kurir.content.MessageKind.class),
          true,
          true,
          true,
          true,
          true,
          true,
          true);

  @Override
  public ActionOutcome revoke(DeviceRef device, ChatRef chat, String networkId) {
    return network.revoke(device.id(), chat, networkId);
  }

  @Override
  public ActionOutcome edit(DeviceRef device, ChatRef chat, String networkId, String text) {
    return network.edit(device.id(), chat, networkId, text);
  }

  @Override
  public ActionOutcome markRead(DeviceRef device, ChatRef chat, Optional<String> networkId) {
    return network.markRead(device.id(), chat, networkId);
  }

  @Override
  public ActionOutcome typing(
      DeviceRef device, ChatRef chat, boolean typing, Optional<String> latestReceived) {
    return network.typing(device.id(), chat, typing);
  }

  @Override
  public SendOutcome send(DeviceRef device, OutgoingMessage message) {
    SendOutcome outcome = network.send(device.id(), message);
    if (outcome instanceof SendOutcome.Sent && !message.toGroup()) {
      // The network names the chat by the id its owner hides behind (as a WhatsApp Web engine's
      // send reply does): what the device knew of that id alone is the number's from now on.
      network
          .hiddenIdOf(message.recipient())
          .ifPresent(id -> contacts.learn(device.id(), message.recipient(), id));
    }
    return outcome;
  }

  @Override
  public NumberCheck checkNumber(DeviceRef device, String e164) {
    NumberCheck check = network.checkNumber(device.id(), e164);
    if (check == NumberCheck.EXISTS) {
      // The network answers with the account's LID beside the number (as WAHA's check-exists
      // does): a sender the device knew by that LID alone is known by number from now on.
      contacts.learn(device.id(), e164, SandboxNetwork.lidOf(e164));
    }
    return check;
  }

  @Override
  public DeviceState state(DeviceRef device) {
    return network.state(device.id());
  }

  @Override
  public Optional<String> pairingCode(DeviceRef device) {
    return Optional.of(network.pairingCode(device.id(), device.number()));
  }

  /** A sandbox code is "scanned" only through the control API: without it nothing can scan it. */
  @Override
  public Optional<String> pairingObstacle(DeviceRef device) {
    if (controlApi) {
      return Optional.empty();
    }
    return Optional.of(
        "device "
            + device.id()
            + " is on the sandbox network, whose codes are scanned only through the sandbox API"
            + " (POST /sandbox/scan), and this gateway does not serve it: start the gateway with"
            + " drivers.sandbox.api=true (KURIR_DRIVERS_SANDBOX_API=true; it needs admin.token)");
  }

  @Override
  public boolean logout(DeviceRef device) {
    return network.logout(device.id());
  }

  @Override
  public Optional<String> groupIdByName(DeviceRef device, String name) {
    return network.groupIdByName(device.id(), name);
  }

  @Override
  public GroupMembers groupMembers(DeviceRef device, String groupId) {
    return network.groupMembers(device.id(), groupId);
  }

  @Override
  public void close() {
    // The network belongs to whoever created it and may outlive this driver (restart tests);
    // it only stops reporting to this gateway.
    DriverListener l = listener;
    if (l != null) {
      network.detach(l);
    }
    if (ownsNetwork) {
      network.close();
    }
  }
}
