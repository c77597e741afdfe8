package io.kurir.driver.cloud;

import io.kurir.driver.ContractFixture;
import io.kurir.driver.DeviceRef;
import io.kurir.driver.DeviceState;
import io.kurir.driver.Driver;
import io.kurir.driver.DriverContract;
import io.kurir.driver.ListeningDriverFactory;
import io.kurir.driver.OutgoingMessage;
import io.kurir.driver.Receipt;
import io.kurir.driver.SendOutcome;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeGraphApi;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Cloud API driver passes the driver contract against {@link FakeGraphApi}. What Meta's API has
 * not (groups, a number look-up, incoming group messages) is declared, and the suite checks the
 * driver's clean answer instead.
 */
class CloudDriverContractTest extends DriverContract {

  @Override
  protected ContractFixture startNetwork(Path dir) {
    return new CloudContractFixture(dir);
  }

  /** A {@link CloudFixture} whose cloud driver reports to the suite; statuses posted on demand. */
  static final class CloudContractFixture extends ContractFixture {
    static final String NEW_TOKEN = "EAAG-fake-token-2";
    private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
        new com.fasterxml.jackson.databind.ObjectMapper();

    final ListeningDriverFactory factory = listened(new CloudDriverFactory());
    final CloudFixture f;
    private final AtomicBoolean fixtureDeviceGiven = new AtomicBoolean();
    private final AtomicLong ids = new AtomicLong(8_800_000_000L);

    CloudContractFixture(Path dir) {
      f = new CloudFixture(dir, factory);
      f.graph.autoStatuses(false); // the suite says when the network confirms and delivers
    }

    @Override
    public Driver driver() {
      return factory.driver();
    }

    @Override
    public SettableClock clock() {
      return f.clock;
    }

    /**
     * The fixture's device first, then more devices of the same business number (one phone-number
     * id: the fake serves one), each with a valid token: a Cloud API device is connected once it
     * has one.
     */
    @Override
    public DeviceRef connectedDevice(String e164) {
      DeviceRef device =
          fixtureDeviceGiven.compareAndSet(false, true)
              ? f.device.ref()
              : f.kurir
                  .newDevice(
                      e164,
                      CloudDriverFactory.NAME,
                      Map.of(
                          "phone-number-id", FakeGraphApi.PHONE_NUMBER_ID,
                          "access-token", FakeGraphApi.TOKEN,
                          "app-secret", FakeGraphApi.APP_SECRET,
                          "verify-token", FakeGraphApi.VERIFY_TOKEN))
                  .ref();
      Eventually.until("connected", () -> driver().isConnected(device));
      customersWrite();
      return device;
    }

    /**
     * Meta takes free-form messages only to a person who wrote in the last 24 hours: the suite's
     * customers write first, as a real business's do (each write reaches every device of the
     * number, and opens their window at Meta and at the driver).
     */
    private void customersWrite() {
      for (String customer : DriverContract.CUSTOMERS) {
        f.graph.customerWrites(customer);
      }
    }

    private DeviceRef newDevice(String e164, String phoneNumberId, String token) {
      return f.kurir
          .newDevice(
              e164,
              CloudDriverFactory.NAME,
              Map.of(
                  "phone-number-id",
                  phoneNumberId,
                  "access-token",
                  token,
                  "app-secret",
                  FakeGraphApi.APP_SECRET,
                  "verify-token",
                  FakeGraphApi.VERIFY_TOKEN))
          .ref();
    }

    /**
     * A token or phone-number id Meta refuses is found by the look-up at attach: the device is held
     * (failed, its queue waiting). Fixed, the core resumes it: the suite's listener took the hold,
     * so the fixture calls {@link Driver#resume} as the core does after a configuration change. The
     * Graph API not reached at attach is not made here: the fake is Meta's network, always up while
     * a test runs (the driver leaves the state alone then; sends answer Failed and are tried again,
     * {@code CloudDriverTest}).
     */
    @Override
    public List<AttachTrouble> attachTroubles() {
      return List.of(
          AttachTrouble.absent(
              "the network not reached",
              "FakeGraphApi has no outage: a Cloud device has no session at Meta, so an unreached"
                  + " Graph API changes no state; its sends answer Failed"),
          AttachTrouble.of(
              "an access token Meta refuses",
              e164 -> newDevice(e164, FakeGraphApi.PHONE_NUMBER_ID, "EAAG-refused-token"),
              DeviceState.FAILED,
              d -> fixed(d, Map.of("access-token", FakeGraphApi.TOKEN))),
          AttachTrouble.of(
              "a phone-number id Meta does not know",
              e164 -> newDevice(e164, "106540352242999", FakeGraphApi.TOKEN),
              DeviceState.FAILED,
              d -> fixed(d, Map.of("phone-number-id", FakeGraphApi.PHONE_NUMBER_ID))));
    }

    private void fixed(DeviceRef d, Map<String, String> config) {
      f.kurir.gateway().tenants().configureDevice(d.id(), config);
      driver().resume(d);
      customersWrite(); // the device is new to them
    }

    @Override
    public Expected provoke(DeviceRef device, String to, Trouble trouble) {
      switch (trouble) {
        case NOT_ON_NETWORK -> f.graph.failNext(1, 400, 131026, "Message undeliverable", false);
        case DEVICE_NOT_CONNECTED -> f.graph.revokeTokens(); // found at the next call
        case RATE_LIMITED -> f.graph.failNext(1, 400, 130429, "Rate limit hit", false);
        case TRANSIENT_ERROR -> f.graph.failNext(1, 500, 131000, "Something went wrong", false);
        case REFUSED -> f.graph.failNext(1, 400, 131009, "Parameter value is not valid", false);
      }
      return Expected.as(
          switch (trouble) {
            case NOT_ON_NETWORK -> SendOutcome.NotFound.class;
            case DEVICE_NOT_CONNECTED -> SendOutcome.DeviceUnavailable.class;
            case RATE_LIMITED -> SendOutcome.RetryAfter.class;
            case TRANSIENT_ERROR -> SendOutcome.Failed.class;
            case REFUSED -> SendOutcome.Permanent.class;
          });
    }

    /** Meta's {@code sent} status, with Kurir's id echoed from {@code biz_opaque_callback_data}. */
    @Override
    public void confirm(DeviceRef device, long messageId, String networkId, String to) {
      f.graph.deliver(
          f.graph.statusPayload(networkId, "sent", Long.toString(messageId), digits(to), 0, null));
    }

    @Override
    public List<String> textsReceived() {
      return f.graph.sent().stream()
          .map(s -> s.body().path("text").path("body").asText(""))
          .toList();
    }

    @Override
    public Optional<String> receiptsOnItsOwn() {
      return Optional.empty();
    }

    @Override
    public void receipt(
        DeviceRef device, long messageId, String networkId, String to, Receipt.Status status) {
      String name =
          switch (status) {
            case DELIVERED -> "delivered";
            case READ -> "read";
            case FAILED -> "failed";
          };
      f.graph.deliver(
          f.graph.statusPayload(
              networkId,
              name,
              Long.toString(messageId),
              digits(to),
              status == Receipt.Status.FAILED ? 131026 : 0,
              status == Receipt.Status.FAILED ? "Message undeliverable" : null));
    }

    @Override
    public Optional<String> noIncoming(IncomingKind kind) {
      return kind == IncomingKind.GROUP_TEXT ? noGroups() : Optional.empty();
    }

    @Override
    public boolean incoming(
        DeviceRef device,
        IncomingKind kind,
        String networkId,
        String fromE164,
        Optional<String> groupId,
        String text,
        byte[] bytes) {
      String from = digits(fromE164);
      var payload =
          switch (kind) {
            case TEXT -> f.graph.textMessage(from, networkId, "Pelanggan", text);
            case IMAGE -> f.graph.mediaMessage(from, networkId, "image", bytes, "image/png", text);
            case FILE ->
                f.graph.mediaMessage(from, networkId, "document", bytes, "application/pdf", text);
            case GROUP_TEXT -> throw new UnsupportedOperationException(noGroups().orElseThrow());
            case LOCATION ->
                f.graph.kindMessage(
                    from,
                    networkId,
                    "location",
                    JSON.createObjectNode()
                        .put("latitude", ContractFixture.LATITUDE)
                        .put("longitude", ContractFixture.LONGITUDE)
                        .put("name", ContractFixture.PLACE)
                        .put("address", ContractFixture.ADDRESS),
                    null);
            case CONTACTS -> {
              var cards = JSON.createArrayNode();
              var card = cards.addObject();
              card.putObject("name").put("formatted_name", ContractFixture.CARD_NAME);
              card.putArray("phones")
                  .addObject()
                  .put("phone", ContractFixture.CARD_PHONE)
                  .put("wa_id", ContractFixture.CARD_WA_ID)
                  .put("type", "CELL");
              yield f.graph.kindMessage(from, networkId, "contacts", cards, null);
            }
            case REACTION ->
                f.graph.kindMessage(
                    from,
                    networkId,
                    "reaction",
                    JSON.createObjectNode()
                        .put("message_id", ContractFixture.QUOTED_ID)
                        .put("emoji", ContractFixture.EMOJI),
                    null);
            case VIDEO -> f.graph.mediaMessage(from, networkId, "video", bytes, "video/mp4", text);
            case AUDIO -> f.graph.mediaMessage(from, networkId, "audio", bytes, "audio/ogg", null);
            case STICKER ->
                f.graph.mediaMessage(from, networkId, "sticker", bytes, "image/webp", null);
            case REPLY ->
                f.graph.kindMessage(
                    from,
                    networkId,
                    "text",
                    JSON.createObjectNode().put("body", text),
                    ContractFixture.QUOTED_ID);
          };
      return f.graph.postWebhook(payload) == 200;
    }

    @Override
    public Optional<String> noHiddenSenders(io.kurir.driver.ContactId.Kind kind) {
      return kind == io.kurir.driver.ContactId.Kind.LID
          ? Optional.of(
              "the Cloud API shows a business no LID: a user who hides their number is named by a"
                  + " business-scoped user id (BSUID)")
          : Optional.empty();
    }

    /** A BSUID as Meta writes one: the user's country, a period, letters and digits. */
    @Override
    public io.kurir.driver.ContactId hiddenId(io.kurir.driver.ContactId.Kind kind, String e164) {
      if (kind != io.kurir.driver.ContactId.Kind.BSUID) {
        throw new UnsupportedOperationException(noHiddenSenders(kind).orElseThrow());
      }
      return io.kurir.driver.ContactId.bsuid("ID.7" + digits(e164));
    }

    /**
     * A text from a username user ({@code from_user_id}, {@code contacts[].user_id}); with {@code
     * phoneKnown} Meta shares the phone beside it ({@code from}, {@code wa_id}). Their writing
     * opens the window, so the suite's reply may go.
     */
    @Override
    public boolean hiddenIncoming(
        DeviceRef device,
        io.kurir.driver.ContactId.Kind kind,
        String networkId,
        String e164,
        boolean phoneKnown,
        Optional<String> groupId,
        String text) {
      if (groupId.isPresent()) {
        throw new UnsupportedOperationException(noGroups().orElseThrow());
      }
      return f.graph.postWebhook(
              f.graph.bsuidTextMessage(
                  hiddenId(kind, e164).value(),
                  phoneKnown ? digits(e164) : null,
                  networkId,
                  "Pelanggan",
                  "pelanggan_" + digits(e164).substring(digits(e164).length() - 4),
                  text))
          == 200;
    }

    /** Nothing to mark: the Graph API has no look-up, it refuses a send (131026) at most. */
    @Override
    public void notOnNetwork(String e164) {}

    @Override
    public Optional<String> noNumberLookup() {
      return Optional.of(
          "the Cloud API has no look-up of accounts: a number is known only once a message to it"
              + " went (or failed with 131026)");
    }

    @Override
    public Optional<String> noGroups() {
      return Optional.of(
          "Kurir does not manage Cloud API groups: a send to a group answers NotFound, a look-up"
              + " finds none");
    }

    @Override
    public String group(String name, List<String> membersE164) {
      throw new UnsupportedOperationException(noGroups().orElseThrow());
    }

    @Override
    public List<SessionChange> sessionChanges(DeviceRef device) {
      return List.of(
          new SessionChange(
              "Meta refuses the access token (found at the next send)",
              d -> {
                f.graph.revokeTokens();
                driver().send(d, text("token refused"));
              },
              DeviceState.FAILED,
              false),
          new SessionChange(
              "the operator sets a new token",
              d -> {
                f.graph.acceptToken(NEW_TOKEN);
                f.kurir
                    .gateway()
                    .tenants()
                    .configureDevice(d.id(), Map.of("access-token", NEW_TOKEN));
                driver().state(d); // the driver sees the new token at its next look
              },
              DeviceState.ONLINE,
              true),
          new SessionChange(
              "the operator logs it out", d -> driver().logout(d), DeviceState.NONE, false),
          new SessionChange(
              "the operator links it again (no code: the number is linked at Meta)",
              d -> driver().pairingCode(d),
              DeviceState.ONLINE,
              true));
    }

    private OutgoingMessage text(String text) {
      return new OutgoingMessage(
          ids.incrementAndGet(), DriverContract.FIXTURE_CUSTOMER, false, "text", text);
    }

    @Override
    public String restarts() {
      return "the gateway, on the same database (the Graph API is Meta's: it has no restart"
          + " Kurir could see)";
    }

    @Override
    public void restart() {
      f.kurir.restart();
      f.graph.webhookTo(f.kurir.url(CloudWebhookRoutes.PATH));
    }

    @Override
    public void close() {
      f.close();
    }

    private static String digits(String e164) {
      return e164.replaceAll("\\D", "");
    }
  }
}
