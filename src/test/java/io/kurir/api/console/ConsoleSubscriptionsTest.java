package io.kurir.api.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.MetaWebhookChecks;
import io.kurir.testing.Numbers;
import io.kurir.testing.RawWebhookReceiver;
import io.kurir.testing.TestGateway;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The license's webhook subscriptions in the console: one made there in Meta's format shows its
 * secret once, its deliveries come signed with that secret, the page lists it with its latest
 * deliveries' outcomes (never the secret), a refused form says why, and removing it ends it.
 */
class ConsoleSubscriptionsTest {
  @TempDir Path dir;

  @Test
  void makesAMetaSubscriptionShowsItsSecretOnceListsItsDeliveriesAndRemovesIt() throws Exception {
    try (TestGateway kurir = TestGateway.start(dir, "--media.allow-private-addresses=true");
        RawWebhookReceiver receiver = new RawWebhookReceiver()) {
      Device device = kurir.newDevice(Numbers.fresh(), true);
      ConsoleClient console = new ConsoleClient(kurir);
      String page = "/console/licenses/" + device.licenseId() + "/webhooks";
      assertThat(console.get("/console/licenses").body()).contains(page);
      assertThat(console.get(page).body()).contains("No webhook subscription yet.");

      HttpResponse<String> made =
          console.post(
              page, "url", receiver.url("/meta"), "events", "message.received", "format", "meta");
      assertThat(made.statusCode()).as(made.body()).isEqualTo(303);
      String sealed =
          made.headers().allValues("Set-Cookie").stream()
              .filter(c -> c.startsWith(OnceShown.COOKIE + "="))
              .findFirst()
              .orElseThrow();
      HttpResponse<String> shown =
          console.send(
              HttpRequest.newBuilder(URI.create(kurir.url(OnceShown.PATH)))
                  .header("Cookie", console.cookie + "; " + sealed.split(";")[0]));
      Matcher secret = Pattern.compile("\\b[0-9a-f]{32}\\b").matcher(shown.body());
      assertThat(secret.find()).as(shown.body()).isTrue();

      assertThat(kurir.sandbox().injectIncoming(device.id(), Numbers.fresh(), "Halo")).isTrue();
      Eventually.until("delivered", () -> receiver.at("/meta").size() == 1);
      RawWebhookReceiver.Received delivery = receiver.at("/meta").getFirst();
      assertThat(delivery.hubSignature())
          .isEqualTo(MetaWebhookChecks.hubSignature(secret.group(), delivery.body()));

      Eventually.until(
          "the delivery listed as delivered",
          () ->
              body(console, page).contains("message.received")
                  && body(console, page).contains("delivered"));
      String listed = console.get(page).body();
      assertThat(listed)
          .contains(receiver.url("/meta"))
          .contains("meta")
          .doesNotContain(secret.group());

      // Meta's webhooks have no device states: the form says so, what was typed stays.
      HttpResponse<String> refused =
          console.post(
              page, "url", receiver.url("/other"), "events", "device.status", "format", "meta");
      assertThat(refused.statusCode()).isEqualTo(422);
      assertThat(refused.body()).contains("device.status").contains(receiver.url("/other"));

      Matcher remove = Pattern.compile(Pattern.quote(page) + "/(\\d+)/remove").matcher(listed);
      assertThat(remove.find()).as(listed).isTrue();
      assertThat(console.post(remove.group()).statusCode()).isEqualTo(303);
      assertThat(console.get(page).body()).contains("No webhook subscription yet.");
    }
  }

  private static String body(ConsoleClient console, String page) {
    try {
      return console.get(page).body();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
