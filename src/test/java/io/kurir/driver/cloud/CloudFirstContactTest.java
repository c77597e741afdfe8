package io.kurir.driver.cloud;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.message.MessageEvent;
import io.kurir.message.MessageState;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first message to a customer on the Cloud API, against a fake that enforces Meta's 24-hour
 * window (a never-contacted customer included): with a template configured, the template goes; a
 * free-form send refused with 131047 goes again once as the template, recorded in its history;
 * without a template it fails at once with {@code window_closed}.
 */
class CloudFirstContactTest {
  @TempDir Path dir;

  @Test
  void aFirstMessageToANewCustomerGoesAsTheDevicesTemplate() {
    try (CloudFixture f = new CloudFixture(dir)) {
      configureTemplate(f);
      String customer = Numbers.fresh();
      long id = f.sendAsync(customer, "Kode OTP 123456");
      f.awaitState(id, MessageState.DELIVERY);
      var sent = f.graph.sentTo(customer.substring(1));
      assertThat(sent).hasSize(1);
      assertThat(sent.getFirst().type()).isEqualTo("template");
      assertThat(
              sent.getFirst()
                  .body()
                  .path("template")
                  .path("components")
                  .path(0)
                  .path("parameters")
                  .path(0)
                  .path("text")
                  .asText())
          .isEqualTo("Kode OTP 123456");
      assertThat(f.graph.windowRefusals()).as("no free-form try first").isEmpty();
      assertThat(notes(f, id)).anyMatch(n -> n.startsWith("sent as template otp_code"));
    }
  }

  @Test
  void aFreeFormSendRefusedWith131047IsSentAgainOnceAsTheTemplateAndTheHistorySaysSo() {
    try (CloudFixture f = new CloudFixture(dir)) {
      configureTemplate(f);
      String customer = f.customer();
      String digits = customer.substring(1);
      // Kurir saw the customer write, but Meta says the window is closed (in the reply).
      f.graph.failNext(1, 400, 131047, "Re-engagement message", false);
      long inReply = f.sendAsync(customer, "Pesanan siap");
      f.awaitState(inReply, MessageState.DELIVERY);
      assertThat(f.graph.sentTo(digits)).hasSize(1);
      assertThat(f.graph.sentTo(digits).getFirst().type()).isEqualTo("template");
      assertThat(notes(f, inReply))
          .anyMatch(n -> n.contains("131047") && n.contains("sent again as template otp_code"));
      assertThat(f.message(inReply).attempts()).isOne();
    }
  }

  @Test
  void a131047ByWebhookIsSentAgainAsTheTemplateToo() {
    try (CloudFixture f = new CloudFixture(dir)) {
      configureTemplate(f);
      String customer = f.customer();
      String digits = customer.substring(1);
      f.graph.failNext(1, 400, 131047, "Re-engagement message", true);
      long byWebhook = f.sendAsync(customer, "Pesanan siap");
      f.awaitState(byWebhook, MessageState.DELIVERY);
      assertThat(f.graph.sentTo(digits).stream().map(io.kurir.testing.FakeGraphApi.Sent::type))
          .containsExactly("text", "template");
      assertThat(notes(f, byWebhook)).anyMatch(n -> n.contains("sent again as template"));
    }
  }

  @Test
  void theTemplateGoesAtMostOncePerMessage() {
    try (CloudFixture f = new CloudFixture(dir)) {
      configureTemplate(f);
      String customer = f.customer();
      int postsBefore = f.graph.posts();
      // The free-form send and its template resend are both refused.
      f.graph.failNext(2, 400, 131047, "Re-engagement message", false);
      long id = f.sendAsync(customer, "Pesanan siap", "flag_retry", "on");
      f.awaitState(id, MessageState.FAILED);
      assertThat(f.message(id).reason()).contains("window_closed");
      assertThat(f.graph.posts()).isEqualTo(postsBefore + 2);
    }
  }

  @Test
  void withoutATemplateAFirstMessageFailsAtOnceAsWindowClosedInTheEcoFamily() {
    try (CloudFixture f = new CloudFixture(dir)) {
      String customer = Numbers.fresh();
      int postsBefore = f.graph.posts();
      assertThat(f.postEco("/api/send_message", f.body(customer, "halo"))).isEqualTo("Other error");
      long id = f.sendAsync(customer, "halo lagi", "flag_retry", "on");
      f.awaitState(id, MessageState.FAILED);
      assertThat(f.message(id).reason()).contains("window_closed");
      assertThat(f.message(id).attempts()).isOne();
      String status =
          f.postEco(
              "/api/check_delivery_status",
              "{\"key\":\"" + f.device.ecoKey() + "\",\"messageId\":\"" + id + "\"}");
      assertThat(status).contains("\"status\":\"failed\"").contains("\"reason\":\"window_closed\"");
      assertThat(f.graph.posts()).as("nothing posted: Meta would refuse it").isEqualTo(postsBefore);
    }
  }

  private static void configureTemplate(CloudFixture f) {
    f.kurir.gateway().tenants().configureDevice(f.device.id(), Map.of("template", "otp_code:id"));
  }

  /** The reasons of a message's history, notes included, once the history has any. */
  static List<String> notes(CloudFixture f, long id) {
    Eventually.until(
        "message " + id + " has a note",
        () ->
            f.kurir.gateway().messages().history(id).orElseThrow().events().stream()
                .anyMatch(e -> e.reason().isPresent()));
    return f.kurir.gateway().messages().history(id).orElseThrow().events().stream()
        .map(MessageEvent::reason)
        .flatMap(java.util.Optional::stream)
        .toList();
  }
}
