package io.kurir.driver.waha;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeWaha;
import io.kurir.testing.TestTables;
import io.kurir.testing.WebhookReceiver;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Senders and group members the engine names only by a LID ({@code <digits>@lid}, on every engine
 * for many contacts): kept, never dropped; resolved to their phone through the engine's lids route
 * ({@code GET /api/{session}/lids/{lid}}) and remembered; when the engine knows no phone, kept and
 * answered by their LID.
 */
class WahaLidTest {
  static final String LID = "160958311837878";
  static final String PHONE = "6281100008702";

  @TempDir Path dir;
  WebhookReceiver receiver;

  @BeforeEach
  void start() {
    receiver = new WebhookReceiver();
  }

  @AfterEach
  void stop() {
    receiver.close();
  }

  /** A linked device of a license answering {@code harga}, whose incoming URL is the receiver. */
  private Device linked(WahaFixture f, String digits) {
    Device device = f.newDevice("+" + digits, Map.of());
    String name = "kurir-" + device.id();
    f.awaitSession(name, "SCAN_QR_CODE");
    f.waha.scan(name, digits);
    Eventually.until("online", () -> f.eco(device, "/api/qr_status").equals("online"));
    f.addBot("harga", "Mulai 10rb");
    String set =
        f.kurir
            .postForm(
                "/v2.0/webhook",
                "license="
                    + f.license.code()
                    + "&no_wa="
                    + digits
                    + "&action=set&url="
                    + receiver.url("/in"))
            .body();
    assertThat(set).contains(receiver.url("/in"));
    return device;
  }

  private JsonNode incomingEvent(int n) {
    Eventually.until("webhook " + n, () -> receiver.received().size() >= n);
    return receiver.received().get(n - 1).json();
  }

  private static List<String> repliesTo(WahaFixture f) {
    return f.waha.sent().stream()
        .filter(s -> s.body().path("text").asText().equals("Mulai 10rb"))
        .map(s -> s.body().path("chatId").asText())
        .toList();
  }

  @Test
  void aLidSenderIsKeptResolvedToItsPhoneAnsweredThereAndRemembered() {
    try (WahaFixture f = new WahaFixture(dir, "--media.allow-private-addresses=true")) {
      Device device = linked(f, "6281100008701");
      String name = "kurir-" + device.id();
      f.waha.lid(LID, PHONE);

      assertThat(f.waha.incomingFromLid(name, "L1", LID, "harga")).isEqualTo(200);
      assertThat(incomingEvent(1).path("contact_name").asText()).isEqualTo(PHONE);
      Eventually.until("answered", () -> repliesTo(f).size() == 1);
      assertThat(repliesTo(f)).containsExactly(PHONE + "@c.us");
      assertThat(f.inbound(device).stream().map(TestTables.InboundRow::sender))
          .containsExactly("+" + PHONE);
      assertThat(f.waha.lidLookups()).isOne();

      // The next message of the same LID: known, the engine is not asked again.
      assertThat(f.waha.incomingFromLid(name, "L2", LID, "lagi")).isEqualTo(200);
      assertThat(incomingEvent(2).path("contact_name").asText()).isEqualTo(PHONE);
      assertThat(f.storedIncoming(device)).isEqualTo(2);
      assertThat(f.waha.lidLookups()).as("remembered").isOne();
    }
  }

  @Test
  void aLidSenderWhosePhoneTheEngineDoesNotKnowIsKeptAndAnsweredAtItsLid() {
    try (WahaFixture f = new WahaFixture(dir, "--media.allow-private-addresses=true")) {
      Device device = linked(f, "6281100008711");
      String name = "kurir-" + device.id();
      f.waha.lid(LID, null); // the engine answers {lid, pn: null}

      assertThat(f.waha.incomingFromLid(name, "U1", LID, "harga")).isEqualTo(200);
      assertThat(incomingEvent(1).path("contact_name").asText()).isEqualTo(LID + "@lid");
      Eventually.until("answered", () -> repliesTo(f).size() == 1);
      assertThat(repliesTo(f)).as("a reply reaches them").containsExactly(LID + "@lid");

      // A lookup that fails (the engine answers 500): still kept.
      f.waha.breakLids(true);
      assertThat(f.waha.incomingFromLid(name, "U2", LID, "halo")).isEqualTo(200);
      assertThat(incomingEvent(2).path("contact_name").asText()).isEqualTo(LID + "@lid");
      assertThat(f.storedIncoming(device)).isEqualTo(2);
      assertThat(f.inbound(device).stream().map(TestTables.InboundRow::sender))
          .containsOnly(LID + "@lid");
    }
  }

  @Test
  void aGroupMessageByALidParticipantIsKeptWithItsPhone() {
    try (WahaFixture f = new WahaFixture(dir, "--media.allow-private-addresses=true")) {
      Device device = linked(f, "6281100008721");
      String name = "kurir-" + device.id();
      f.waha.lid(LID, PHONE);
      String group = "120363025982934599@g.us";

      assertThat(f.waha.incomingInGroupFromLid(name, "G1", group, LID, "halo grup")).isEqualTo(200);
      JsonNode event = incomingEvent(1);
      assertThat(event.path("contact_name").asText()).isEqualTo(PHONE);
      assertThat(event.path("group_id").asText()).isEqualTo(group);
      assertThat(f.inbound(device).stream().map(r -> r.groupId().orElse(null)))
          .containsExactly(group);
    }
  }

  @Test
  void groupMembersKnownOnlyByLidAreResolvedOrKept() {
    try (WahaFixture f = new WahaFixture(dir, "--media.allow-private-addresses=true")) {
      Device device = linked(f, "6281100008731");
      String group = "120363025982934588@g.us";
      f.waha.group(group, "Toko Maju", "6281100008731");
      f.waha.lidMember(group, LID);
      f.waha.lid(LID, PHONE);
      f.waha.lidMember(group, "99887766554433"); // no phone known anywhere

      String members = f.eco(device, "/api/getGroupMember", "group_id", group);
      assertThat(members.split(",")).containsExactly("6281100008731", PHONE, "99887766554433@lid");

      // A member listed by its LID can be sent to, as listed: async and sync.
      long id = f.sendAsync(device, "99887766554433@lid", "Halo anggota");
      f.awaitState(device, id, io.kurir.message.MessageState.SENT);
      String sync =
          f.eco(device, "/api/send_message", "phone_no", "99887766554433@lid", "message", "Lagi");
      assertThat(sync).as(sync).doesNotContain("Number not found");
      assertThat(f.waha.sent())
          .extracting(x -> x.body().path("chatId").asText())
          .containsExactly("99887766554433@lid", "99887766554433@lid");
      // An id the device never met is still refused as a bad number is.
      assertThat(
              f.eco(
                  device,
                  "/api/async_send_message",
                  "phone_no",
                  "55544433322211@lid",
                  "message",
                  "x"))
          .isEqualTo("phone_no_not_valid");
    }
  }

  @Test
  void aLidWhosePhoneTheEngineDoesNotKnowIsNotLookedUpAgainForTenMinutes() {
    try (WahaFixture f = new WahaFixture(dir, "--media.allow-private-addresses=true")) {
      Device device = linked(f, "6281100008751");
      String name = "kurir-" + device.id();
      String group = "120363025982934577@g.us";
      f.waha.group(group, "Toko Maju", "6281100008751");
      f.waha.lidMember(group, LID);
      f.waha.lid(LID, null);

      assertThat(f.waha.incomingFromLid(name, "M1", LID, "halo")).isEqualTo(200);
      Eventually.until("kept", () -> f.storedIncoming(device) == 1);
      assertThat(f.waha.lidLookups()).isOne();
      assertThat(f.waha.incomingFromLid(name, "M2", LID, "lagi")).isEqualTo(200);
      Eventually.until("kept", () -> f.storedIncoming(device) == 2);
      f.eco(device, "/api/getGroupMember", "group_id", group);
      assertThat(f.waha.lidLookups()).as("the miss is remembered").isOne();

      // Ten minutes on: the engine is asked again, and what it has learned since is used.
      f.clock.advance(WahaDriver.LID_MISS_TTL);
      f.waha.lid(LID, PHONE);
      assertThat(f.eco(device, "/api/getGroupMember", "group_id", group)).contains(PHONE);
      assertThat(f.waha.lidLookups()).isEqualTo(2);
    }
  }

  @Test
  void aSendToALidGoesToItsLidChat() {
    var message =
        new io.kurir.driver.OutgoingMessage(
            1L, LID + "@lid", false, "text", "halo", java.util.Optional.empty());
    assertThat(WahaDriver.chatId(message)).isEqualTo(LID + "@lid");
  }

  /** Keeps the fake's own answers honest: the lids routes as WAHA documents them. */
  @Test
  void theFakeAnswersTheLidsRoutesAsWahaDoes() {
    try (WahaFixture f = new WahaFixture(dir, "--media.allow-private-addresses=true")) {
      Device device = linked(f, "6281100008741");
      FakeWaha w = f.waha;
      w.lid(LID, PHONE);
      var http = java.net.http.HttpClient.newHttpClient();
      String base = w.url() + "/api/kurir-" + device.id() + "/lids/";
      assertThat(get(http, base + LID + "%40lid"))
          .isEqualTo("{\"lid\":\"" + LID + "@lid\",\"pn\":\"" + PHONE + "@c.us\"}");
      assertThat(get(http, base + "12345678901"))
          .isEqualTo("{\"lid\":\"12345678901@lid\",\"pn\":null}");
      assertThat(get(http, base + "pn/" + PHONE))
          .isEqualTo("{\"lid\":\"" + LID + "@lid\",\"pn\":\"" + PHONE + "@c.us\"}");
    }
  }

  private static String get(java.net.http.HttpClient http, String url) {
    try {
      return http.send(
              java.net.http.HttpRequest.newBuilder(java.net.URI.create(url))
                  .header("X-Api-Key", FakeWaha.API_KEY)
                  .build(),
              java.net.http.HttpResponse.BodyHandlers.ofString())
          .body();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
