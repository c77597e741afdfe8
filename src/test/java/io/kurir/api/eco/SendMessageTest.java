package io.kurir.api.eco;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.sandbox.SandboxNetwork.FailureKind;
import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** {@code /api/send_message} over real HTTP against a real gateway and the sandbox network. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SendMessageTest {
  private static final String NOT_FOUND = "\\[\\d{14}] Number not found";

  TestGateway kurir;
  Device device;

  @BeforeAll
  void start(@TempDir Path dir) {
    kurir = TestGateway.start(dir);
    device = kurir.newDevice();
  }

  @AfterAll
  void stop() {
    kurir.close();
  }

  private Reply send(String phoneNo, String message) {
    return kurir.postJson(
        "/api/send_message",
        "{\"key\":\""
            + device.ecoKey()
            + "\",\"phone_no\":"
            + phoneNo
            + ",\"message\":"
            + message
            + "}");
  }

  @Test
  void answersExactlySuccessAndThePhoneReceivesTheText() {
    String to = Numbers.fresh();
    Reply reply = send("\"" + to + "\"", "\"Halo dari Kurir\"");

    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.body()).isEqualTo("success");
    assertThat(reply.contentType()).startsWith("text/plain");
    assertThat(kurir.sandbox().inbox(to))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.text()).isEqualTo("Halo dari Kurir");
              assertThat(e.from()).isEqualTo(device.number());
            });
  }

  @Test
  void readsEveryWayPeopleWriteANumber() {
    String to = Numbers.fresh();
    String national = Numbers.national(to); // 0812...
    String digits = Numbers.digits(to); // 62812...
    String spaced =
        "+62 " + to.substring(3, 6) + "-" + to.substring(6, 10) + " " + to.substring(10);

    assertThat(send("\"" + national + "\"", "\"a\"").body()).isEqualTo("success");
    assertThat(send("\"" + digits + "\"", "\"b\"").body()).isEqualTo("success");
    assertThat(send(digits, "\"c\"").body()).as("phone_no as a JSON number").isEqualTo("success");
    assertThat(send("\"" + national.substring(1) + "\"", "\"d\"").body())
        .as("8... form")
        .isEqualTo("success");
    assertThat(send("\"" + spaced + "\"", "\"e\"").body()).isEqualTo("success");

    assertThat(kurir.sandbox().inbox(to))
        .extracting(InboxEntry::text)
        .containsExactly("a", "b", "c", "d", "e");
  }

  @Test
  void sendsToNumbersOfOtherCountries() {
    assertThat(send("\"+49 1512 3456789\"", "\"Hallo\"").body()).isEqualTo("success");
    assertThat(send("\"447911123456\"", "\"Hello\"").body()).isEqualTo("success");

    assertThat(kurir.sandbox().inbox("+4915123456789"))
        .extracting(InboxEntry::text)
        .containsExactly("Hallo");
    assertThat(kurir.sandbox().inbox("+447911123456"))
        .extracting(InboxEntry::text)
        .containsExactly("Hello");
  }

  @Test
  void garbageNumbersGetTheTimestampedNumberNotFound() {
    for (String garbage :
        new String[] {"\"abc\"", "\"12\"", "\"+62-\"", "\"0000000000000000000\""}) {
      Reply reply = send(garbage, "\"x\"");
      assertThat(reply.status()).as(garbage).isEqualTo(200);
      assertThat(reply.body()).as(garbage).matches(NOT_FOUND);
    }
  }

  @Test
  void aNumberWithoutAnAccountIsNotFound() {
    String to = Numbers.fresh();
    kurir.sandbox().setRegistered(to, false);

    assertThat(send("\"" + to + "\"", "\"x\"").body()).matches(NOT_FOUND);
    assertThat(kurir.sandbox().inbox(to)).isEmpty();
  }

  @Test
  void commaSeparatedNumbersGetOneMessageEachAndSuccessOnlyWhenAllWentOut() {
    String a = Numbers.fresh();
    String b = Numbers.fresh();
    String missing = Numbers.fresh();
    kurir.sandbox().setRegistered(missing, false);

    assertThat(send("\"" + a + "," + Numbers.national(b) + "\"", "\"both\"").body())
        .isEqualTo("success");
    Reply partial = send("\"" + a + ", " + missing + ", " + b + "\"", "\"second\"");

    assertThat(partial.body()).matches(NOT_FOUND);
    assertThat(kurir.sandbox().inbox(a))
        .extracting(InboxEntry::text)
        .containsExactly("both", "second");
    assertThat(kurir.sandbox().inbox(b))
        .extracting(InboxEntry::text)
        .containsExactly("both", "second");
  }

  @Test
  void theFirstFailureInTheGivenOrderIsTheAnswer() {
    String failing = Numbers.fresh();
    kurir.sandbox().injectFailure(failing, FailureKind.FAIL, 1);
    String missing = Numbers.fresh();
    kurir.sandbox().setRegistered(missing, false);

    assertThat(send("\"" + Numbers.fresh() + "," + failing + "," + missing + "\"", "\"x\"").body())
        .isEqualTo("Other error");
    assertThat(send("\"" + missing + "," + Numbers.fresh() + "\"", "\"x\"").body())
        .matches(NOT_FOUND);
  }

  @Test
  void keepsLineBreakConventionsEmojiAndArabic() {
    String to = Numbers.fresh();
    send("\"" + to + "\"", "\"Baris satu<ENTER>Baris dua\\\\nBaris tiga\"");
    send("\"" + to + "\"", "\"Salam \\ud83d\\ude00 \u0645\u0631\u062d\u0628\u0627 \u2764\"");

    assertThat(kurir.sandbox().inbox(to))
        .extracting(InboxEntry::text)
        .containsExactly("Baris satu\nBaris dua\nBaris tiga", "Salam 😀 مرحبا ❤");
  }

  @Test
  void deliveryFlagAnswersTheDeliveryObject() {
    Reply reply =
        kurir.postJson(
            "/api/send_message",
            "{\"key\":\""
                + device.ecoKey()
                + "\",\"phone_no\":\""
                + Numbers.fresh()
                + "\",\"message\":\"x\",\"deliveryFlag\":true}");

    assertThat(reply.contentType()).startsWith("application/json");
    assertThat(reply.body())
        .matches(
            "\\{\"status\":\"success\",\"message\":\\{\"messageId\":\"\\d+\",\"sentDate\":\"\\d{4}-\\d\\d-\\d\\d"
                + " \\d\\d:\\d\\d:\\d\\d\",\"status\":\"(sent|delivery|read)\",\"statusDate\":\"[-0-9: ]{19}\"}}");
  }

  @Test
  void deliveryFlagOnAFailureCarriesTheFailureString() {
    String missing = Numbers.fresh();
    kurir.sandbox().setRegistered(missing, false);
    Reply reply =
        kurir.postJson(
            "/api/send_message",
            "{\"key\":\""
                + device.ecoKey()
                + "\",\"phone_no\":\""
                + missing
                + "\",\"message\":\"x\",\"deliveryFlag\":\"true\"}");

    assertThat(reply.body())
        .matches(
            "\\{\"status\":\""
                + NOT_FOUND
                + "\",\"message\":\\{.*\"status\":\"not_exists\".*\"reason\":\"number_not_found\"}}");
  }

  @Test
  void aDeviceThatIsNotConnectedAnswersPhoneOfflineAtOnce() {
    Device offline = kurir.newDevice("+6281100007777", false);
    String to = Numbers.fresh();

    Reply reply =
        kurir.postJson(
            "/api/send_message",
            "{\"key\":\"" + offline.ecoKey() + "\",\"phone_no\":\"" + to + "\",\"message\":\"x\"}");

    assertThat(reply.body()).isEqualTo("phone_offline");
    kurir.sandbox().pair(offline.id(), offline.number());
    assertThat(kurir.gateway().messages().queued(offline.id())).isZero();
    assertThat(kurir.sandbox().inbox(to))
        .as("a refused sync message is never sent later")
        .isEmpty();
  }

  @Test
  void aDriverErrorIsOtherErrorAndNotRetriedWithoutFlagRetry() {
    String to = Numbers.fresh();
    kurir.sandbox().injectFailure(to, FailureKind.FAIL, 1);

    assertThat(send("\"" + to + "\"", "\"x\"").body()).isEqualTo("Other error");
    assertThat(kurir.gateway().messages().queued(device.id())).isZero();
    assertThat(send("\"" + to + "\"", "\"y\"").body()).isEqualTo("success");
    assertThat(kurir.sandbox().inbox(to)).extracting(InboxEntry::text).containsExactly("y");
  }

  @Test
  void optionalFieldsOfRealClientsAreAccepted() {
    String to = Numbers.fresh();
    Reply reply =
        kurir.postJson(
            "/api/send_message",
            "{\"key\":\""
                + device.ecoKey()
                + "\",\"phone_no\":\""
                + to
                + "\",\"message\":\"x\",\"skip_link\":true,\"flag_retry\":\"off\",\"pendingTime\":0,"
                + "\"unknown\":{\"nested\":[1,2]}}");

    assertThat(reply.body()).isEqualTo("success");
    Eventually.until("delivered", () -> kurir.sandbox().inbox(to).size() == 1);
  }
}
