package io.kurir.message;

import static io.kurir.testing.MessageObjects.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kurir.content.CloudMessageJson;
import io.kurir.content.MessageContent;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.MessageObjects;
import io.kurir.testing.ScriptedDriver;
import io.kurir.testing.TestGateway;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A driver that declares nothing but the default ({@code TEXT_ONLY}, as a driver that reads only a
 * message's kind, text and file does): every other kind, a reply and mentions of Kurir's own API
 * are refused at accept, naming the driver and the kind, with nothing stored and nothing handed to
 * the driver; a plain text and the seed families' sends still go.
 */
class CarriedKindsTest {
  @TempDir Path dir;
  final SettableClock clock = TestGateway.settableClock();
  final ScriptedDriver driver = new ScriptedDriver("scripted", false, clock);
  TestGateway kurir;
  Device device;
  Sends sends;

  @BeforeEach
  void start() {
    kurir = TestGateway.start(dir, clock, new ScriptedDriver.Factory(driver));
    device = kurir.newDevice("+6281100002911", "scripted", Map.of());
    sends = new Sends(kurir.gateway().messages(), Duration.ofSeconds(10));
  }

  @AfterEach
  void stop() {
    kurir.close();
  }

  private SendCommand command(MessageContent content) {
    return SendCommand.builder("v1")
        .to(new Recipient("+6281234500011", false))
        .content(content)
        .build();
  }

  @Test
  void anUndeclaredKindIsRefusedBeforeAnythingIsStoredOrSent() {
    List<String> objects = MessageObjects.everyKind("net-1");
    for (String object : objects.subList(1, objects.size() - 1)) { // all but the plain texts
      MessageContent content = CloudMessageJson.parse(json(object));
      assertThatThrownBy(() -> sends.send(device, command(content)))
          .as(object)
          .isInstanceOfSatisfying(
              SendRefused.class,
              e -> {
                assertThat(e.reason()).isEqualTo(SendRefused.Reason.KIND_NOT_SUPPORTED);
                assertThat(e.getMessage())
                    .isEqualTo("the scripted driver cannot carry " + content.kind().wireName());
              });
    }
    MessageContent reply = CloudMessageJson.parse(json(objects.getLast()));
    assertThatThrownBy(() -> sends.send(device, command(reply)))
        .isInstanceOfSatisfying(
            SendRefused.class,
            e -> assertThat(e.reason()).isEqualTo(SendRefused.Reason.CAPABILITY_NOT_SUPPORTED));
    assertThat(kurir.storedMessages(device.id())).isZero();
    assertThat(driver.sends()).isEmpty();
  }

  @Test
  void aPlainTextAndTheSeedsSendsStillGo() {
    MessageContent text = CloudMessageJson.parse(json(MessageObjects.everyKind("x").getFirst()));
    sends.send(device, command(text));
    sends.send(
        device,
        SendCommand.builder("eco")
            .to(new Recipient("+6281234500011", false))
            .kind("image")
            .body("caption")
            .build());
    assertThat(kurir.storedMessages(device.id())).isEqualTo(2);
    Eventually.until("the text reached the driver", () -> !driver.sends().isEmpty());
    assertThat(driver.sends().getFirst().message().kind()).isEqualTo("text");
  }
}
