package io.kurir.driver.gowa;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.ContactId;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeGowa;
import io.kurir.testing.WebhookReceiver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GOWA's webhook: taken only with a valid {@code X-Hub-Signature-256} over the raw body (a bad or
 * missing one changes nothing); incoming texts, group messages and media (fetched from GOWA's
 * {@code statics/media/}); senders known by a LID, with the phone GOWA resolved, or by the LID
 * alone; a redelivery stored once.
 */
class GowaWebhookTest {
  @TempDir Path dir;

  private static List<String> inbound(GowaFixture f, Device device) {
    return f.inbound(device).stream()
        .map(r -> r.sender() + "|" + r.groupId().orElse("") + "|" + r.body())
        .toList();
  }

  @Test
  void aBadSignatureChangesNothing() {
    try (GowaFixture f = new GowaFixture(dir)) {
      Device device = f.linked("+6281100027201");
      String slot = GowaFixture.slot(device);
      long id = f.sendAsync(device, "6281100027209", "Halo");
      Eventually.until("sent", () -> f.gowa.sent().size() == 1);

      String forged = "sha256=" + "0".repeat(64);
      assertThat(f.gowa.incoming(slot, "IN-BAD", "6281100027208", "palsu", forged)).isEqualTo(401);
      assertThat(f.gowa.incoming(slot, "IN-NONE", "6281100027208", "palsu", "")).isEqualTo(401);
      var plain =
          f.kurir.post(
              "/drivers/gowa/webhook",
              "{\"event\":\"message\"",
              "application/json",
              "X-Hub-Signature-256",
              "sha256=abc");
      assertThat(plain.status()).isEqualTo(401);
      assertThat(plain.body()).contains("signature_not_valid");
      assertThat(f.kurir.storedIncoming(device.id())).isZero();
      // The send's own outcome is recorded after GOWA answered it (on a busy machine, later).
      Eventually.until("sent", () -> f.message(device, id).state().wireName().equals("sent"));
      // A forged receipt: the message stays sent.
      String netId = f.gowa.sent().getFirst().id();
      String ack =
          envelope(
              "message.ack",
              "6281100027201@s.whatsapp.net",
              slot,
              "{\"ids\":[\"" + netId + "\"],\"receipt_type\":\"read\"}");
      assertThat(f.gowa.deliver(ack, forged)).isEqualTo(401);
      assertThat(f.gowa.deliver(ack, "")).isEqualTo(401);
      assertThat(f.message(device, id).state().wireName()).isEqualTo("sent");
      // Signed, it would have moved it: the forged one was refused for its signature alone.
      assertThat(f.gowa.deliver(ack, null)).isEqualTo(200);
      f.awaitState(device, id, io.kurir.message.MessageState.READ);

      // Signed, but not JSON: a 400 in Kurir's style, not a 500.
      byte[] broken = "{nope".getBytes(StandardCharsets.UTF_8);
      var notJson =
          f.kurir.post(
              "/drivers/gowa/webhook",
              "{nope",
              "application/json",
              "X-Hub-Signature-256",
              "sha256=" + hmac(broken));
      assertThat(notJson.status()).isEqualTo(400);
      assertThat(notJson.body()).contains("body_not_valid");
    }
  }

  private static String hmac(byte[] body) throws RuntimeException {
    return io.kurir.driver.Signatures.hmacHex("HmacSHA256", FakeGowa.WEBHOOK_SECRET, body);
  }

  @Test
  void incomingTextsGroupsAndMediaReachTheIncomingWebhookOnce() throws Exception {
    try (WebhookReceiver receiver = new WebhookReceiver();
        GowaFixture f = new GowaFixture(dir, "--media.allow-private-addresses=true")) {
      Device device = f.linked("+6281100027211");
      String slot = GowaFixture.slot(device);
      setIncomingWebhook(f, device, receiver.url("/in"));

      assertThat(f.gowa.incoming(slot, "3EB0IN1", "6281100027212", "halo")).isEqualTo(200);
      assertThat(f.gowa.incoming(slot, "3EB0IN1", "6281100027212", "halo"))
          .as("GOWA delivers again")
          .isEqualTo(200);
      assertThat(
              f.gowa.incomingInGroup(
                  slot, "3EB0IN2", "120363025982934543@g.us", "6281100027213", "di grup"))
          .isEqualTo(200);
      byte[] jpeg = {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF, 1, 2, 3};
      assertThat(
              f.gowa.incomingMedia(slot, "3EB0IN3", "6281100027214", "image", "foto", "jpeg", jpeg))
          .isEqualTo(200);
      byte[] pdf = "%PDF-1.4".getBytes(StandardCharsets.UTF_8);
      assertThat(f.gowa.incomingMedia(slot, "3EB0IN4", "6281100027214", "document", "", "pdf", pdf))
          .isEqualTo(200);

      assertThat(inbound(f, device))
          .containsExactly(
              "+6281100027212||halo",
              "+6281100027213|120363025982934543@g.us|di grup",
              "+6281100027214||foto",
              "+6281100027214||");
      List<String> files = f.inbound(device).stream().flatMap(r -> r.mediaPath().stream()).toList();
      assertThat(files).hasSize(2);
      assertThat(files.get(0)).endsWith("3EB0IN3.jpeg"); // the extension GOWA gave
      assertThat(Files.readAllBytes(Path.of(files.get(0)))).isEqualTo(jpeg);
      assertThat(files.get(1)).endsWith("3EB0IN4.pdf");
      assertThat(Files.readAllBytes(Path.of(files.get(1)))).isEqualTo(pdf);
      Eventually.until("four incoming webhooks", () -> receiver.received().size() == 4);
    }
  }

  @Test
  void aSenderKnownByALidIsKeptAndItsPhoneLearned() {
    try (GowaFixture f = new GowaFixture(dir)) {
      Device device = f.linked("+6281100027221");
      String slot = GowaFixture.slot(device);
      // GOWA resolved the phone: from is the phone, from_lid the LID; Kurir learns the pair.
      assertThat(f.gowa.incomingFromLid(slot, "3EB0L1", "251556368777322", "6281100027222", "a"))
          .isEqualTo(200);
      // Later the same LID without a phone: the phone learned stands for it.
      assertThat(f.gowa.incomingFromLid(slot, "3EB0L2", "251556368777322", null, "b"))
          .isEqualTo(200);
      // A LID GOWA knows no phone of: kept by the LID.
      assertThat(f.gowa.incomingFromLid(slot, "3EB0L3", "251556368777399", null, "c"))
          .isEqualTo(200);
      List<String> rows = inbound(f, device);
      assertThat(rows).hasSize(3);
      assertThat(rows.subList(0, 2)).containsExactly("+6281100027222||a", "+6281100027222||b");
      // Kept by its LID, with no phone made up for it.
      assertThat(rows.get(2)).isEqualTo("251556368777399@lid||c");
    }
  }

  private static void setIncomingWebhook(GowaFixture f, Device device, String url) {
    String set =
        f.kurir
            .postForm(
                "/v2.0/webhook",
                "license="
                    + f.licenseOf(device).code()
                    + "&no_wa="
                    + device.number().substring(1)
                    + "&action=set&url="
                    + url)
            .body();
    assertThat(set).contains(url);
  }

  static ContactId lid(String digits) {
    return ContactId.lid(digits);
  }

  /** GOWA's webhook envelope; {@code sessionId} null leaves it out (GOWA before v9). */
  private static String envelope(String event, String deviceJid, String sessionId, String payload) {
    return "{\"event\":\""
        + event
        + "\",\"device_id\":\""
        + deviceJid
        + "\""
        + (sessionId == null ? "" : ",\"session_id\":\"" + sessionId + "\"")
        + ",\"payload\":"
        + payload
        + "}";
  }

  private static String text(String id, String chat, String from, String body) {
    return "{\"id\":\""
        + id
        + "\",\"chat_id\":\""
        + chat
        + "\",\"from\":\""
        + from
        + "\",\"body\":\""
        + body
        + "\",\"is_from_me\":false}";
  }

  @Test
  void anEventIsTakenOnlyForTheDeviceAndAccountItNames() {
    try (GowaFixture f = new GowaFixture(dir)) {
      Device device = f.linked("+6281100027231");
      String slot = GowaFixture.slot(device);
      String sender = "6281100027232@s.whatsapp.net";
      // GOWA without session_id: the account's JID (with whatsmeow's device suffix) names it.
      assertThat(
              f.gowa.deliver(
                  envelope(
                      "message",
                      "6281100027231:12@s.whatsapp.net",
                      null,
                      text("3EB0J1", sender, sender, "lewat jid")),
                  null))
          .isEqualTo(200);
      assertThat(inbound(f, device)).containsExactly("+6281100027232||lewat jid");

      // The slot's name with another account's JID: not this device's, dropped (200: GOWA would
      // retry a refusal five times).
      assertThat(
              f.gowa.deliver(
                  envelope(
                      "message",
                      "6281100027239@s.whatsapp.net",
                      slot,
                      text("3EB0J2", sender, sender, "akun lain")),
                  null))
          .isEqualTo(200);
      // A device Kurir does not have (deleted): dropped, 200 too.
      assertThat(
              f.gowa.deliver(
                  envelope(
                      "message",
                      "6281100027238@s.whatsapp.net",
                      "kurir-999999",
                      text("3EB0J3", sender, sender, "terhapus")),
                  null))
          .isEqualTo(200);
      assertThat(inbound(f, device)).containsExactly("+6281100027232||lewat jid");
    }
  }

  @Test
  void signedButUnusableInputIsAnsweredOnceAndNotRetried() {
    try (GowaFixture f = new GowaFixture(dir)) {
      Device device = f.linked("+6281100027241");
      String slot = GowaFixture.slot(device);
      String jid = "6281100027241@s.whatsapp.net";
      String sender = "6281100027242@s.whatsapp.net";
      // Media GOWA does not serve: kept without the file, answered 200 (a retry gives the same).
      for (String[] bad :
          new String[][] {
            {"3EB0M1", "/etc/passwd"},
            {"3EB0M2", "statics/../../etc/passwd"},
            {"3EB0M3", "statics/media/%2e%2e/%2e%2e/etc/passwd"},
            {"3EB0M4", "statics/media/gone.jpg"}
          }) {
        String payload =
            "{\"id\":\""
                + bad[0]
                + "\",\"chat_id\":\""
                + sender
                + "\",\"from\":\""
                + sender
                + "\",\"image\":\""
                + bad[1]
                + "\"}";
        assertThat(f.gowa.deliver(envelope("message", jid, slot, payload), null))
            .as(bad[1])
            .isEqualTo(200);
      }
      assertThat(inbound(f, device))
          .hasSize(4)
          .allMatch(r -> r.equals("+6281100027242||[image not kept by GOWA]"));

      // Junk ids and group JIDs: dropped, 200.
      String longId = "A".repeat(5000);
      String longGroup = "1".repeat(300) + "@g.us";
      assertThat(
              f.gowa.deliver(
                  envelope("message", jid, slot, text(longId, sender, sender, "id panjang")), null))
          .isEqualTo(200);
      assertThat(
              f.gowa.deliver(
                  envelope("message", jid, slot, text("3EB0G1", "@g.us", sender, "grup kosong")),
                  null))
          .isEqualTo(200);
      assertThat(
              f.gowa.deliver(
                  envelope("message", jid, slot, text("3EB0G2", longGroup, sender, "grup panjang")),
                  null))
          .isEqualTo(200);
      assertThat(inbound(f, device)).hasSize(4);
      // A group JID of either form is taken.
      assertThat(
              f.gowa.deliver(
                  envelope(
                      "message",
                      jid,
                      slot,
                      text("3EB0G3", "6281100027249-1600000000@g.us", sender, "grup lama")),
                  null))
          .isEqualTo(200);
      assertThat(inbound(f, device))
          .last()
          .isEqualTo("+6281100027242|6281100027249-1600000000@g.us|grup lama");
    }
  }
}
