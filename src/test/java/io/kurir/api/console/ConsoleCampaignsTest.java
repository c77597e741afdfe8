package io.kurir.api.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kurir.campaign.Campaign;
import io.kurir.campaign.CampaignDraft;
import io.kurir.campaign.CampaignStatus;
import io.kurir.driver.sandbox.SandboxNetwork;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.time.SettableClock;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The campaign pages over HTTP on a settable clock (10:00 in Jakarta): the form's campaign is the
 * one Kurir's API would make, a mistake is shown with what was typed, a campaign's chart and report
 * come from its store, the dashboard counts the last day's messages per device by the operator's
 * hour (and nothing older), a customer sees and makes their own license's campaigns only, and the
 * pages keep the console's Content-Security-Policy.
 */
class ConsoleCampaignsTest {
  static final String CSP =
      "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'";

  @TempDir Path dir;
  SettableClock clock;
  TestGateway kurir;

  @BeforeEach
  void start() {
    clock = TestGateway.settableClock(); // 2026-03-10 10:00 in Jakarta
    // About the pages, not the pacing: the safe-sending policy is off.
    kurir = TestGateway.start(dir, clock, TestGateway.safeSendingOff());
  }

  @AfterEach
  void stop() {
    kurir.close();
  }

  @Test
  void theFormsCampaignIsTheOneTheApiWouldMake() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    Device other = kurir.newDevice(Numbers.fresh(), "sandbox", java.util.Map.of());
    ConsoleClient console = new ConsoleClient(kurir);
    String base = "/console/licenses/" + device.licenseId() + "/campaigns";
    assertThat(console.get(base).body()).contains("No campaign yet.").contains("Save the draft");

    HttpResponse<String> made =
        console.post(
            base,
            "name",
            "Promo",
            "tags",
            "Parents; 7A",
            "text",
            "Halo {name}",
            "variants",
            "Hai {name}\n---\nSelamat pagi {name|Kak}\n",
            "image",
            "https://example.com/promo.jpg",
            "device",
            Long.toString(device.id()),
            "start_at",
            "2026-03-11T09:30");
    assertThat(made.statusCode()).isEqualTo(303);
    String location = made.headers().firstValue("Location").orElseThrow();
    assertThat(location).startsWith(base + "/");
    long id = Long.parseLong(location.substring(location.lastIndexOf('/') + 1));
    Campaign c = kurir.gateway().campaigns().get(device.licenseId(), id);
    assertThat(c.status()).isEqualTo(CampaignStatus.DRAFT);
    assertThat(c.tags()).containsExactly("parents", "7a");
    assertThat(c.message().toString())
        .isEqualTo(
            "{\"type\":\"image\",\"image\":{\"link\":\"https://example.com/promo.jpg\","
                + "\"caption\":\"Halo {name}\"}}");
    assertThat(c.variants())
        .extracting(v -> v.path("image").path("caption").asText())
        .containsExactly("Hai {name}", "Selamat pagi {name|Kak}");
    assertThat(c.devices()).containsExactly(device.id());
    // The start time is the operator's wall clock: 09:30 in Jakarta.
    assertThat(c.startAt()).contains(Instant.parse("2026-03-11T02:30:00Z"));
    // Left unticked, the box turns quiet hours off.
    assertThat(c.quietHours()).isEmpty();

    String page = console.get(location).body();
    assertThat(page)
        .contains("Promo")
        .contains("contacts tagged parents, 7a")
        .contains("image https://example.com/promo.jpg: Halo {name} (and 2 other versions)")
        .contains(device.number())
        .contains("2026-03-11 09:30:00")
        .contains("none: it sends at any hour")
        .contains("The chart of its sends starts when the campaign does.");
    assertThat(console.get("/console/campaigns").body()).contains("Promo").contains("draft");

    HttpResponse<String> quiet =
        console.post(
            base,
            "name",
            "Malam",
            "tags",
            "parents",
            "text",
            "Halo",
            "quiet",
            "on",
            "quiet_from",
            "22:00",
            "quiet_to",
            "05:30");
    long quietId = idOf(quiet);
    // A pool of every device names the ones it has now.
    assertThat(console.get(base + "/" + quietId).body())
        .contains("every enabled device of the license (now " + device.number() + ")");
    assertThat(kurir.gateway().campaigns().get(device.licenseId(), quietId).quietHours())
        .map(q -> List.of(q.from(), q.to()))
        .contains(List.of(LocalTime.of(22, 0), LocalTime.of(5, 30)));

    // A device of another license is not the pool's: refused on the form, what was typed kept.
    HttpResponse<String> refused =
        console.post(
            base,
            "name",
            "Salah",
            "tags",
            "parents",
            "text",
            "Teks <b>ini</b> tetap",
            "device",
            Long.toString(other.id()));
    assertThat(refused.statusCode()).isEqualTo(404);
    assertThat(refused.body())
        .contains("the license has no device " + other.id())
        .contains("Teks &lt;b&gt;ini&lt;/b&gt; tetap")
        .contains("value=\"Salah\"");
    HttpResponse<String> noTags = console.post(base, "name", "Salah", "text", "Halo");
    assertThat(noTags.statusCode()).isEqualTo(400);
    assertThat(noTags.body()).contains("Fill in the audience");
    HttpResponse<String> sameHours =
        console.post(
            base,
            "name",
            "Salah",
            "tags",
            "x",
            "text",
            "Halo",
            "quiet",
            "on",
            "quiet_from",
            "21:00",
            "quiet_to",
            "21:00");
    assertThat(sameHours.statusCode()).isEqualTo(400);
    assertThat(sameHours.body()).contains("Quiet hours are two different times");
    HttpResponse<String> badStart =
        console.post(base, "name", "Salah", "tags", "x", "text", "Halo", "start_at", "besok");
    assertThat(badStart.body()).contains("Start time is a date and a time");
    HttpResponse<String> badImage =
        console.post(base, "name", "Salah", "tags", "x", "text", "Halo", "image", "promo.jpg");
    assertThat(badImage.statusCode()).isEqualTo(400);
    assertThat(badImage.body())
        .contains("Image link is a web address")
        .doesNotContain("image.link");
    assertThat(kurir.gateway().campaigns().list(device.licenseId())).hasSize(2);

    // A button its status does not offer: refused on the campaign's page.
    HttpResponse<String> pause = console.post(location + "/pause");
    assertThat(pause.statusCode()).isEqualTo(409);
    assertThat(pause.body()).contains("pause applies to a running or scheduled campaign");
    assertThat(console.post(location + "/explode").statusCode()).isEqualTo(404);
    assertThat(console.post(base + "/999999/start").statusCode()).isEqualTo(404);
    assertThat(console.post(location + "/cancel").statusCode()).isEqualTo(303);
    assertThat(console.get(location).body())
        .contains("cancelled")
        .doesNotContain(location + "/start");
  }

  @Test
  void aCampaignOfAnUploadedListShowsItsListAsTheAudience() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    ConsoleClient console = new ConsoleClient(kurir);
    var campaigns = kurir.gateway().campaigns();
    long id =
        campaigns
            .create(
                device.licenseId(),
                new CampaignDraft(
                    "Parents",
                    List.of(),
                    (ObjectNode)
                        new ObjectMapper()
                            .readTree("{\"type\":\"text\",\"text\":{\"body\":\"Halo {name}\"}}"),
                    List.of(),
                    List.of(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    true))
            .id();
    String page = "/console/licenses/" + device.licenseId() + "/campaigns/" + id;
    assertThat(console.get(page).body()).contains("uploaded list (none uploaded yet)");
    HttpResponse<String> start = console.post(page + "/start");
    assertThat(start.statusCode()).isEqualTo(409);
    assertThat(start.body()).contains("none is uploaded yet");
    campaigns.uploadList(
        device.licenseId(),
        id,
        "phone,name\n" + Numbers.fresh() + ",Ani\n" + Numbers.fresh() + ",Budi\n",
        false);
    assertThat(console.get(page).body())
        .contains("uploaded list (2 contacts)")
        .doesNotContain("contacts tagged");
  }

  @Test
  void theChartTheReportAndTheDashboardCountWhatHappenedWhen() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    // The day before, 12:59:59 and 13:00 in Jakarta: one just outside the dashboard's day at
    // 12:30 today, one just inside.
    clock.set(Instant.parse("2026-03-09T05:59:59Z"));
    assertThat(kurir.sendAsync(device, Numbers.fresh(), "kemarin").status()).isEqualTo(200);
    clock.set(Instant.parse("2026-03-09T06:00:00Z"));
    assertThat(kurir.sendAsync(device, Numbers.fresh(), "kemarin siang").status()).isEqualTo(200);
    clock.set(Instant.parse("2026-03-10T03:00:00Z")); // 10:00

    List<String> phones = contacts(device, 4, "promo");
    ConsoleClient console = new ConsoleClient(kurir);
    String base = "/console/licenses/" + device.licenseId() + "/campaigns";
    // Quiet from 09:00 to 11:00: started at 10:00, it takes its list and holds.
    String location =
        console
            .post(
                base,
                "name",
                "Promo",
                "tags",
                "promo",
                "text",
                "Halo {name}",
                "quiet",
                "on",
                "quiet_from",
                "09:00",
                "quiet_to",
                "11:00")
            .headers()
            .firstValue("Location")
            .orElseThrow();
    long id = Long.parseLong(location.substring(location.lastIndexOf('/') + 1));
    assertThat(console.post(location + "/start").statusCode()).isEqualTo(303);
    Eventually.until(
        "the list taken",
        () -> kurir.gateway().campaigns().counts(device.licenseId(), id).waiting() == 4);
    // Meanwhile one contact opts out, and the network will refuse the message to another.
    kurir.gateway().contactBook().setUnsubscribed(device.licenseId(), phones.get(3), true, "api");
    kurir.sandbox().injectFailure(phones.get(2), SandboxNetwork.FailureKind.REFUSED, 1);
    clock.set(Instant.parse("2026-03-10T04:00:00Z")); // 11:00
    Eventually.until(
        "the campaign sent",
        () ->
            kurir.gateway().campaigns().get(device.licenseId(), id).status()
                == CampaignStatus.DONE);
    assertThat(kurir.sandbox().inbox(phones.get(0))).hasSize(1);
    assertThat(kurir.sandbox().inbox(phones.get(3))).isEmpty();
    // The sandbox's phones read what they got 2 s later.
    clock.advance(Duration.ofSeconds(3));
    Eventually.until(
        "the messages read",
        () -> kurir.gateway().campaigns().counts(device.licenseId(), id).read() == 2);

    HttpResponse<String> page = console.get(location);
    assertThat(page.headers().firstValue("Content-Security-Policy")).contains(CSP);
    // Every 5 minutes from 10:00 to 11:00: queued, sent, delivered, read, failed, opted out.
    List<List<String>> chart = figures(page.body(), "campaign-chart");
    assertThat(chart).hasSize(13);
    assertThat(chart.getFirst()).containsExactly("10:00", "0", "0", "0", "0", "0", "0");
    assertThat(chart.getLast()).containsExactly("11:00", "3", "2", "0", "2", "1", "1");
    assertThat(page.body())
        .contains("4 of 4 recipients done (100%)")
        .contains("<progress class=\"campaign\" max=\"4\" value=\"4\"")
        .contains("queued 3, sent 2, delivered 0, read 2, failed 1, opted out 1 in all.");

    HttpResponse<String> report = console.get(location + "/report.csv");
    assertThat(report.headers().firstValue("Content-Type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("text/csv"));
    List<String> lines = report.body().lines().toList();
    assertThat(lines.getFirst()).startsWith("phone,name,variant,device,message_id,status");
    assertThat(lines).hasSize(5);
    assertThat(lines.stream().filter(l -> l.startsWith(phones.get(2))).findFirst().orElseThrow())
        .contains(",failed,");
    assertThat(lines.stream().filter(l -> l.startsWith(phones.get(3))).findFirst().orElseThrow())
        .contains(",opted_out,");

    // 12:30: two more from the device.
    clock.set(Instant.parse("2026-03-10T05:30:00Z"));
    kurir.sendAsync(device, Numbers.fresh(), "siang");
    kurir.sendAsync(device, Numbers.fresh(), "siang lagi");
    HttpResponse<String> dashboard = console.get("/console");
    assertThat(dashboard.headers().firstValue("Content-Security-Policy")).contains(CSP);
    List<List<String>> traffic = figures(dashboard.body(), "traffic");
    assertThat(traffic).hasSize(24);
    assertThat(traffic.getFirst()).containsExactly("13:00", "1");
    assertThat(traffic.get(22)).containsExactly("11:00", "3");
    assertThat(traffic.getLast()).containsExactly("12:00", "2");
    assertThat(traffic.stream().mapToInt(r -> Integer.parseInt(r.get(1))).sum()).isEqualTo(6);
    assertThat(dashboard.body())
        .contains("the last 24 hours to 13:00 (Asia/Jakarta)")
        .contains("<th scope=\"col\">" + device.number() + "</th>");
  }

  @Test
  void aCustomerSeesAndMakesTheirOwnLicensesCampaignsOnly() throws Exception {
    Device mine = kurir.newDevice(Numbers.fresh(), true);
    Device theirs = kurir.newDevice(Numbers.fresh(), true);
    ConsoleClient operator = new ConsoleClient(kurir);
    long theirCampaign =
        idOf(
            operator.post(
                "/console/licenses/" + theirs.licenseId() + "/campaigns",
                "name",
                "Milik mereka",
                "tags",
                "x",
                "text",
                "Halo"));

    ConsoleClient customer = ConsoleClient.customer(kurir, kurir.licenseOf(mine).code());
    assertThat(customer.get("/console/my").body()).contains("/console/my/campaigns");
    assertThat(customer.get("/console/my/campaigns").body())
        .contains("No campaign yet.")
        .doesNotContain("Milik mereka");
    HttpResponse<String> made =
        customer.post(
            "/console/my/campaigns", "name", "Punya saya", "tags", "pelanggan", "text", "Halo");
    assertThat(made.headers().firstValue("Location").orElseThrow())
        .startsWith("/console/my/campaigns/");
    long own = idOf(made);
    assertThat(kurir.gateway().campaigns().get(mine.licenseId(), own).name())
        .isEqualTo("Punya saya");
    assertThat(customer.get("/console/my/campaigns").body()).contains("Punya saya");
    assertThat(customer.get("/console/my/campaigns/" + own).body()).contains("Punya saya");

    // Another license's campaign is not found, as one that does not exist; nor can it be moved.
    assertThat(customer.get("/console/my/campaigns/" + theirCampaign).statusCode()).isEqualTo(404);
    assertThat(customer.get("/console/my/campaigns/" + theirCampaign + "/report.csv").statusCode())
        .isEqualTo(404);
    assertThat(customer.post("/console/my/campaigns/" + theirCampaign + "/start").statusCode())
        .isEqualTo(404);
    assertThat(kurir.gateway().campaigns().get(theirs.licenseId(), theirCampaign).status())
        .isEqualTo(CampaignStatus.DRAFT);
    // The operator's pages are not theirs.
    assertThat(customer.get("/console/licenses/" + mine.licenseId() + "/campaigns").statusCode())
        .isEqualTo(303);
    assertThat(customer.get("/console/campaigns").statusCode()).isEqualTo(303);
  }

  private static long idOf(HttpResponse<String> made) {
    assertThat(made.statusCode()).as(made.body()).isEqualTo(303);
    String location = made.headers().firstValue("Location").orElseThrow();
    return Long.parseLong(location.substring(location.lastIndexOf('/') + 1));
  }

  private List<String> contacts(Device device, int n, String tag) {
    return contacts(kurir, device, n, tag);
  }

  /** {@code n} new contacts of the device's license, named Siti 0 …, with the tag. */
  static List<String> contacts(TestGateway kurir, Device device, int n, String tag) {
    StringBuilder csv = new StringBuilder("phone,name,tags\n");
    List<String> phones = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String p = Numbers.fresh();
      phones.add(p);
      csv.append(p).append(",Siti ").append(i).append(',').append(tag).append('\n');
    }
    kurir.gateway().contactBook().importCsv(device.licenseId(), csv.toString(), false);
    return phones;
  }

  /** A chart's figures on a page: each row's time, then its counts. */
  static List<List<String>> figures(String html, String chart) {
    Matcher table =
        Pattern.compile(
                "data-testid=\"" + chart + "-figures\">.*?<tbody>(.*?)</tbody>", Pattern.DOTALL)
            .matcher(html);
    assertThat(table.find()).as(chart + " in " + html).isTrue();
    List<List<String>> rows = new ArrayList<>();
    Matcher row = Pattern.compile("<tr>(.*?)</tr>", Pattern.DOTALL).matcher(table.group(1));
    while (row.find()) {
      List<String> cells = new ArrayList<>();
      Matcher cell = Pattern.compile("<t[hd][^>]*>([^<]*)</t[hd]>").matcher(row.group(1));
      while (cell.find()) {
        cells.add(cell.group(1));
      }
      rows.add(cells);
    }
    return rows;
  }
}
