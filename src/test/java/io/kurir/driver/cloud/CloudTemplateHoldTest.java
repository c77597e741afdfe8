package io.kurir.driver.cloud;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.device.DeviceState;
import io.kurir.message.MessageState;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A device template Meta refuses (not approved on the account in that language: 132001; another
 * number of body parameters than Kurir gives: 132000) is the device's configuration, not the
 * message's fault: the device is held with a reason naming its {@code template} setting, its queue
 * waits (one message found it, the rest were not tried), and a changed configuration resumes it.
 */
class CloudTemplateHoldTest {
  @TempDir Path dir;

  @ParameterizedTest
  @CsvSource({"no_such_template:id, 132001", "otp_code:pt_BR, 132001", "two_fields:id, 132000"})
  void aTemplateMetaRefusesHoldsTheDeviceUntilItsConfigurationChanges(String template, int code) {
    try (CloudFixture f = new CloudFixture(dir)) {
      f.graph.approveTemplate("two_fields", "id", 2);
      f.kurir.gateway().tenants().configureDevice(f.device.id(), Map.of("template", template));
      // One customer who never wrote (the template goes): one send to a recipient at a time, so
      // the first finds the refusal before the next could go.
      String customer = Numbers.fresh();
      List<Long> ids = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        ids.add(f.sendAsync(customer, "Kode OTP " + i));
      }
      Eventually.until(
          "held",
          () ->
              f.kurir.gateway().queueHolds().reason(f.device.id()).isPresent()
                  && f.kurir.gateway().deviceStates().current(f.device.id()) == DeviceState.FAILED);
      String reason = f.kurir.gateway().queueHolds().reason(f.device.id()).orElseThrow();
      assertThat(reason).contains("template").contains(template).contains(Integer.toString(code));
      assertThat(f.postEco("/api/qr_status", f.key())).isEqualTo("failed");
      Eventually.until(
          "all wait in the queue",
          () -> ids.stream().allMatch(id -> f.message(id).state() == MessageState.PENDING));
      assertThat(f.graph.posts()).as("one message found it; the rest were not tried").isEqualTo(1);
      assertThat(f.graph.sent()).isEmpty();

      f.kurir.gateway().tenants().configureDevice(f.device.id(), Map.of("template", "otp_code:id"));
      ids.forEach(id -> f.awaitState(id, MessageState.DELIVERY));
      assertThat(f.graph.sentTo(customer.substring(1)))
          .extracting(s -> s.body().path("template").path("name").asText())
          .containsExactly("otp_code", "otp_code", "otp_code", "otp_code");
      assertThat(f.postEco("/api/qr_status", f.key())).isEqualTo("online");
    }
  }
}
