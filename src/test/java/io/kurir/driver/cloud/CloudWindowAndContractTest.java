package io.kurir.driver.cloud;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.message.MessageState;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The 24-hour window (a known closed window fails fast, or sends the device's template) and every
 * session operation of the contract on a cloud device.
 */
class CloudWindowAndContractTest {
  @TempDir Path dir;

  @Test
  void aKnownClosedWindowFailsFastOrSendsTheTemplateAndANewMessageOpensIt() {
    try (CloudFixture f = new CloudFixture(dir)) {
      String customer = Numbers.fresh();
      String digits = customer.substring(1);
      assertThat(f.graph.postWebhook(f.graph.textMessage(digits, "wamid.W1", "C", "hi")))
          .isEqualTo(200);
      long inside = f.sendAsync(customer, "inside the window");
      f.awaitState(inside, MessageState.DELIVERY);

      f.clock.advance(Duration.ofHours(25));
      long outside = f.sendAsync(customer, "outside", "flag_retry", "on");
      f.awaitState(outside, MessageState.FAILED);
      assertThat(f.message(outside).reason()).contains("window_closed");
      assertThat(f.graph.sentTo(digits)).as("nothing posted for it").hasSize(1);

      f.kurir
          .gateway()
          .tenants()
          .configureDevice(f.device.id(), Map.of("template", "order_update:id"));
      long templated = f.sendAsync(customer, "Pesanan 12345\\n  siap   diambil");
      f.awaitState(templated, MessageState.DELIVERY);
      var sent = f.graph.sentTo(digits).getLast().body();
      assertThat(sent.path("type").asText()).isEqualTo("template");
      assertThat(sent.path("template").path("name").asText()).isEqualTo("order_update");
      assertThat(sent.path("template").path("language").path("code").asText()).isEqualTo("id");
      var parameter = sent.path("template").path("components").path(0).path("parameters").path(0);
      assertThat(parameter.path("type").asText()).isEqualTo("text");
      assertThat(parameter.path("text").asText()).isEqualTo("Pesanan 12345 siap diambil");

      assertThat(f.graph.postWebhook(f.graph.textMessage(digits, "wamid.W2", "C", "ok")))
          .isEqualTo(200);
      long reopened = f.sendAsync(customer, "free form again");
      f.awaitState(reopened, MessageState.DELIVERY);
      assertThat(f.graph.sentTo(digits).getLast().type()).isEqualTo("text");
    }
  }

  @Test
  void theWindowErrorOfTheNetworkIsRememberedForTheNextSend() {
    try (CloudFixture f = new CloudFixture(dir)) {
      String customer = f.customer();
      int postsBefore = f.graph.posts();
      f.graph.failNext(1, 400, 131047, "Re-engagement message", false);
      long first = f.sendAsync(customer, "one");
      f.awaitState(first, MessageState.FAILED);
      long second = f.sendAsync(customer, "two");
      f.awaitState(second, MessageState.FAILED);
      assertThat(f.message(second).reason()).contains("window_closed");
      assertThat(f.graph.posts()).as("the second was not posted").isEqualTo(postsBefore + 1);
    }
  }

  @Test
  void sessionOperationsOfTheContract() {
    try (CloudFixture f = new CloudFixture(dir)) {
      assertThat(f.postEco("/api/qr_status", f.key())).isEqualTo("online");
      assertThat(f.postEco("/api/generate_qr", f.key())).isEqualTo("success");
      String check =
          "{\"key\":\"" + f.device.ecoKey() + "\",\"phone_no\":\"" + Numbers.fresh() + "\"}";
      assertThat(f.postEco("/api/check_number", check)).isEqualTo("unknow");
      assertThat(
              f.postEco(
                  "/api/send_group",
                  "{\"key\":\""
                      + f.device.ecoKey()
                      + "\",\"group_name\":\"Tim\",\"message\":\"x\"}"))
          .isEqualTo("group_not_found");

      String to = f.customer();
      long sent = f.sendAsync(to, "before logout");
      f.awaitState(sent, MessageState.DELIVERY);
      String status = "{\"key\":\"" + f.device.ecoKey() + "\",\"msg_id\":\"" + sent + "\"}";
      assertThat(f.postEco("/api/status_msg_id", status)).isEqualTo("success");

      assertThat(f.postEco("/api/logout", f.key())).isEqualTo("success");
      assertThat(f.postEco("/api/qr_status", f.key())).isEqualTo("none");
      assertThat(f.postEco("/api/logout", f.key())).isEqualTo("failed");
      long waiting = f.sendAsync(to, "while logged out");
      assertThat(f.message(waiting).state()).isEqualTo(MessageState.PENDING);

      assertThat(f.postEco("/api/generate_qr", f.key())).isEqualTo("success");
      assertThat(f.postEco("/api/qr_status", f.key())).isEqualTo("online");
      f.awaitState(waiting, MessageState.DELIVERY);
      Eventually.until(
          "logout and the new link in the state history",
          () ->
              f.kurir.gateway().deviceStates().history(f.device.id()).stream()
                  .map(e -> e.from().wireName() + ">" + e.to().wireName())
                  .toList()
                  .containsAll(java.util.List.of("online>none", "none>online")));
    }
  }
}
