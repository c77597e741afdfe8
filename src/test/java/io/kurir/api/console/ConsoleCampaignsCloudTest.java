package io.kurir.api.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.Device;
import io.kurir.testing.FakeGraphApi;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.time.SettableClock;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's New campaign form on a license with a Cloud API number (whose campaigns need a
 * template, which the form has no field for): the refusal is said above the form with what was
 * typed kept, for the operator and for the customer, the form says why, and ticking the other
 * numbers makes the draft.
 */
class ConsoleCampaignsCloudTest {
  @TempDir Path dir;
  SettableClock clock;
  FakeGraphApi graph;
  TestGateway kurir;
  Device cloud;
  Device sandbox;

  @BeforeEach
  void start() {
    clock = TestGateway.settableClock();
    graph = new FakeGraphApi(clock);
    List<String> flags = new ArrayList<>(List.of(TestGateway.safeSendingOff()));
    flags.add("--drivers.cloud.graph-url=" + graph.graphUrl());
    kurir = TestGateway.start(dir, clock, flags.toArray(String[]::new));
    cloud =
        kurir.newDevice(
            Numbers.fresh(),
            "cloud",
            Map.of(
                "phone-number-id", FakeGraphApi.PHONE_NUMBER_ID,
                "access-token", FakeGraphApi.TOKEN,
                "app-secret", FakeGraphApi.APP_SECRET,
                "verify-token", FakeGraphApi.VERIFY_TOKEN));
    sandbox = kurir.gateway().tenants().createDevice(cloud.licenseId(), Numbers.fresh(), "sandbox");
  }

  @AfterEach
  void stop() {
    kurir.close();
    graph.close();
  }

  @Test
  void aPoolWithACloudNumberIsRefusedAboveTheFormWithWhatWasTypedKept() throws Exception {
    ConsoleClient operator = new ConsoleClient(kurir);
    String base = "/console/licenses/" + cloud.licenseId() + "/campaigns";
    assertThat(operator.get(base).body())
        .contains("A Cloud API number sends a campaign only as a template")
        .contains("tick only the other numbers");
    refusedWithWhatWasTyped(operator, base);
    refusedWithWhatWasTyped(
        ConsoleClient.customer(kurir, kurir.licenseOf(cloud).code()), "/console/my/campaigns");

    // Only the other number ticked: the draft is made.
    HttpResponse<String> made =
        operator.post(
            base, "name", "Rapat", "tags", "7a", "text", "Halo", "device", sandbox.id() + "");
    assertThat(made.statusCode()).as(made.body()).isEqualTo(303);
    assertThat(kurir.gateway().campaigns().list(cloud.licenseId())).hasSize(1);
  }

  private void refusedWithWhatWasTyped(ConsoleClient console, String base) throws Exception {
    for (String[] pool : List.of(new String[0], new String[] {"device", cloud.id() + ""})) {
      List<String> form =
          new ArrayList<>(List.of("name", "Rapat 7A", "tags", "7a", "text", "Halo {name} <b>"));
      form.addAll(List.of(pool));
      HttpResponse<String> refused = console.post(base, form.toArray(String[]::new));
      assertThat(refused.statusCode()).as(refused.body()).isEqualTo(422);
      assertThat(refused.body())
          .contains("device " + cloud.number() + " is a Cloud API number")
          .contains("value=\"Rapat 7A\"")
          .contains("Halo {name} &lt;b&gt;")
          .contains("Save the draft");
    }
    assertThat(kurir.gateway().campaigns().list(cloud.licenseId())).isEmpty();
  }
}
