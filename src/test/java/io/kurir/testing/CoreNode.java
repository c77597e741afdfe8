package io.kurir.testing;

import io.kurir.device.DeviceStates;
import io.kurir.device.SessionEvents;
import io.kurir.driver.DriverCatalog;
import io.kurir.driver.Drivers;
import io.kurir.message.Message;
import io.kurir.message.MessageState;
import io.kurir.message.Messages;
import io.kurir.message.Recipient;
import io.kurir.message.RetryPolicy;
import io.kurir.message.SendRequest;
import io.kurir.message.StatusHook;
import io.kurir.phone.PhoneNumbers;
import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.tenant.Device;
import io.kurir.tenant.DeviceDrivers;
import io.kurir.tenant.Tenants;
import io.kurir.time.Timestamps;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;

/**
 * The message core without HTTP, as one node of a gateway runs it: its own database handle (and
 * group-commit writer) on a SQLite file, tenants, the pipeline ({@link Messages}) and a {@link
 * ScriptedDriver} whose events go to the pipeline, wired as the gateway wires them. Two nodes on
 * one file share a database as two gateways would (on PostgreSQL in a class marked {@link
 * OnPostgreSQL}: one database per file).
 */
public final class CoreNode implements AutoCloseable {
  private static final ZoneId ZONE = ZoneId.of("Asia/Jakarta");

  private final Database db;
  private final Tenants tenants;
  private final Messages messages;
  private final ScriptedDriver driver;

  private CoreNode(Path file, int nodeId, Clock clock, ScriptedDriver driver) {
    this.driver = driver;
    this.db = TestDatabases.open(TestDatabases.at(file));
    IdGenerator ids = new IdGenerator(clock, nodeId);
    this.tenants =
        new Tenants(
            db,
            ids,
            clock,
            ZONE,
            new PhoneNumbers("ID"),
            DeviceDrivers.of(new DriverCatalog(List.of(new ScriptedDriver.Factory(driver)))));
    this.messages =
        new Messages(
            db,
            ids,
            clock,
            new Drivers(driver),
            tenants,
            new RetryPolicy(Duration.ofSeconds(10), 3),
            StatusHook.NONE,
            io.kurir.message.MediaFetch.NONE,
            "node-" + nodeId,
            Messages.Wiring.NONE);
    tenants.onDeviceChanged(messages::deviceChanged);
    tenants.onDeviceDeleted(messages::deviceDeleted);
    driver.start(
        new SessionEvents(
            messages,
            new DeviceStates(
                db,
                clock,
                ids,
                new Timestamps(ZONE),
                () -> {},
                new io.kurir.webhook.Events(db, ids, clock, Duration.ofDays(7), () -> {})),
            in -> {}));
  }

  /** A node with id {@code nodeId} (its lease owner is {@code node-<nodeId>}) on {@code file}. */
  public static CoreNode start(Path file, int nodeId, Clock clock, ScriptedDriver driver) {
    return new CoreNode(file, nodeId, clock, driver);
  }

  public Database db() {
    return db;
  }

  public Tenants tenants() {
    return tenants;
  }

  public Messages messages() {
    return messages;
  }

  public ScriptedDriver driver() {
    return driver;
  }

  /** A new partner, license and device of the node's driver. */
  public Device newDevice(String number) {
    var partner = tenants.createPartner("Partner " + number, "");
    var license = tenants.createLicense(partner.id(), "License " + number, "", null, List.of());
    return tenants.createDevice(license.id(), number, driver.name());
  }

  /** Accepts one async text message to {@code to}, as an API call would. */
  public Message send(Device device, String to, String text) {
    return send(device, to, text, false);
  }

  /** Accepts one async text message, with {@code flag_retry} as given. */
  public Message send(Device device, String to, String text, boolean retry) {
    return messages
        .accept(
            device,
            new SendRequest(
                List.of(Recipient.number(to)), "text", text, "test", false, retry, Duration.ZERO))
        .getFirst();
  }

  /** The message as stored now. */
  public Message find(Device device, long id) {
    return messages.find(device, id).orElseThrow();
  }

  public MessageState stateOf(Device device, long id) {
    return find(device, id).state();
  }

  /** Stops the pipeline (senders detach their devices), then the database. */
  @Override
  public void close() {
    driver.release(); // a held send must not hold the stop up
    messages.close();
    db.close();
  }
}
