package io.kurir.api.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.Device;
import io.kurir.testing.Browser;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * A first campaign in the console, in a real browser (headless Chromium) against a gateway on the
 * sandbox with a settable clock: made from the form, started at night (quiet hours hold it), paused
 * and resumed, then sent at 06:00, its progress bar and its chart moving as the clock does; the
 * dashboard's chart of the day's traffic per device; a campaign that paused by itself showing why.
 * Screenshots under {@code target/console-screenshots/}.
 */
@Tag("browser")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleCampaignsBrowserTest {
  static final Instant NIGHT = Instant.parse("2026-03-10T14:30:00Z"); // 21:30 in Jakarta
  static final Instant MORNING = Instant.parse("2026-03-10T23:00:00Z"); // 06:00

  SettableClock clock;
  TestGateway kurir;
  Browser browser;
  ChromeDriver page;

  @BeforeAll
  void start(@TempDir Path dir) {
    clock = TestGateway.settableClock();
    // About the pages, not the pacing: the safe-sending policy is off.
    kurir = TestGateway.start(dir, clock, TestGateway.safeSendingOff());
    browser = Browser.start();
    page = browser.driver();
  }

  @AfterAll
  void stop() {
    if (browser != null) {
      browser.close();
    }
    kurir.close();
  }

  @BeforeEach
  void signedIn() {
    clock.set(NIGHT);
    page.get(kurir.url("/console/sign-in"));
    page.manage().deleteAllCookies();
    page.get(kurir.url("/console/sign-in"));
    page.findElement(By.cssSelector("form input[value=operator] ~ label input[name=secret]"))
        .sendKeys(TestGateway.ADMIN_TOKEN);
    click(page.findElement(By.id("operator-sign-in")));
  }

  @Test
  void anOperatorMakesAFirstCampaignStartsItPausesResumesAndWatchesItSend() {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    List<String> phones = contacts(device, 3, "promo");
    page.get(kurir.url("/console/licenses"));
    click(
        page.findElement(
            By.xpath("//a[@href='/console/licenses/" + device.licenseId() + "/campaigns']")));
    assertThat(main()).contains("No campaign yet.");

    fill("name", "Promo Ramadan");
    fill("tags", "promo");
    fill("text", "Halo {name}, promo Ramadan!");
    // Quiet hours are on by default, 21:00 to 06:00.
    assertThat(page.findElement(By.name("quiet")).isSelected()).isTrue();
    assertThat(page.findElement(By.name("quiet_from")).getAttribute("value")).isEqualTo("21:00");
    browser.screenshot("39-campaign-form");
    submit("Save the draft");
    assertThat(status()).isEqualTo("draft");
    assertThat(main()).contains("The chart of its sends starts when the campaign does.");
    browser.screenshot("40-campaign-draft");

    // 21:30: started, it takes its list and holds until the morning.
    submitConfirmed("Start");
    assertThat(status()).isEqualTo("running");
    refreshUntil(d -> text("progress-text").startsWith("0 of 3 recipients done"));
    assertThat(text("progress-text")).contains("3 waiting their turn");
    refreshUntil(d -> !page.findElements(By.cssSelector("[data-testid=waiting]")).isEmpty());
    assertThat(text("waiting"))
        .isEqualTo("Waiting for the end of the quiet hours at 2026-03-11 06:00:00.");
    assertThat(chartFigures("campaign-chart"))
        .containsExactly(List.of("21:30", "0", "0", "0", "0", "0", "0"));
    assertThat(progress()).isEqualTo("0");
    phones.forEach(p -> assertThat(kurir.sandbox().inbox(p)).isEmpty());

    submit("Pause");
    assertThat(status()).isEqualTo("paused");
    assertThat(main()).doesNotContain("Paused by itself");
    submit("Resume");
    assertThat(status()).isEqualTo("running");

    // 06:00: it sends; the bar fills and the chart's sent line rises in the last bucket.
    clock.set(MORNING);
    refreshUntil(d -> status().equals("done"));
    phones.forEach(p -> assertThat(kurir.sandbox().inbox(p)).hasSize(1));
    assertThat(text("progress-text")).startsWith("3 of 3 recipients done (100%)");
    assertThat(progress()).isEqualTo("3");
    List<List<String>> rows = chartFigures("campaign-chart");
    // Every 15 minutes from 21:30 to 06:00: queued, sent, delivered, read, failed, opted out.
    assertThat(rows).hasSize(35);
    assertThat(rows.getLast()).startsWith("06:00", "3", "3");
    assertThat(find("[data-testid=campaign-chart] svg desc").getAttribute("textContent"))
        .contains("queued 3, sent 3");
    browser.screenshot("41-campaign-sent");

    // The sandbox's phones read what they got 2 s after: the read line takes the sent ones.
    clock.advance(Duration.ofSeconds(3));
    refreshUntil(d -> counts().get(3).equals("3"));
    assertThat(chartFigures("campaign-chart").getLast())
        .containsExactly("06:00", "3", "3", "0", "3", "0", "0");
    assertThat(find("[data-testid=campaign-chart] svg").findElements(By.tagName("polyline")))
        .hasSize(6);
    assertThat(page.findElement(By.linkText("Report (CSV)")).getAttribute("href"))
        .endsWith(
            "/console/licenses/"
                + device.licenseId()
                + "/campaigns/"
                + campaignId()
                + "/report.csv");
    // Nothing on the page came from elsewhere, and nothing the policy refuses is in it.
    assertThat(
            (Long)
                page.executeScript(
                    "return performance.getEntriesByType('resource')"
                        + ".filter(e => !e.name.startsWith(location.origin)).length"))
        .isZero();
    assertThat(page.findElements(By.cssSelector("[style], script:not([src])"))).isEmpty();
    browser.screenshot("42-campaign-read");

    // Every license's campaigns, with their progress.
    page.get(kurir.url("/console/campaigns"));
    WebElement row =
        page.findElement(By.xpath("//table[@data-testid='campaigns']//tr[td/a='Promo Ramadan']"));
    assertThat(row.getText()).contains("done").contains("3 of 3 (100%)");

    // The dashboard: the day's messages per device and hour, the last hour 06:00 in Jakarta.
    page.get(kurir.url("/console"));
    List<List<String>> traffic = chartFigures("traffic");
    assertThat(traffic).hasSize(24);
    assertThat(traffic.getLast().getFirst()).isEqualTo("06:00");
    int column = headers("traffic").indexOf(device.number());
    assertThat(column).isPositive();
    assertThat(traffic.getLast().get(column)).isEqualTo("3");
    assertThat(traffic.get(22).get(column)).isEqualTo("0");
    assertThat(find("[data-testid=traffic] svg title").getAttribute("textContent"))
        .isEqualTo("Messages accepted per device, per hour");
    browser.screenshot("43-dashboard-traffic");
  }

  @Test
  void aCampaignThatPausedByItselfSaysWhy() {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    contacts(device, 2, "parents");
    clock.set(MORNING);
    page.get(kurir.url("/console/licenses/" + device.licenseId() + "/campaigns"));
    fill("name", "Rapat");
    fill("tags", "parents");
    fill("text", "Rapat orang tua besok jam 9.");
    submit("Save the draft");
    kurir.gateway().tenants().setDeviceDisabled(device.id(), true);
    submitConfirmed("Start");
    refreshUntil(d -> status().equals("paused"));
    assertThat(text("stop-reason")).isEqualTo("Paused by itself: no_usable_device");
    assertThat(text("stop-advice")).startsWith("No number of its pool can send");
    browser.screenshot("44-campaign-paused-by-itself");

    kurir.gateway().tenants().setDeviceDisabled(device.id(), false);
    submit("Resume");
    refreshUntil(d -> status().equals("done"));
    assertThat(page.findElements(By.cssSelector("[data-testid=stop-reason]"))).isEmpty();
  }

  private List<String> contacts(Device device, int n, String tag) {
    return ConsoleCampaignsTest.contacts(kurir, device, n, tag);
  }

  private long campaignId() {
    String url = page.getCurrentUrl();
    return Long.parseLong(url.substring(url.lastIndexOf('/') + 1));
  }

  /** The rows of a chart's figures: each its time, then the count of each series. */
  private List<List<String>> chartFigures(String chart) {
    List<List<String>> rows = new ArrayList<>();
    for (WebElement tr :
        page.findElements(By.cssSelector("[data-testid=" + chart + "-figures] tbody tr"))) {
      List<String> cells = new ArrayList<>();
      for (WebElement cell : tr.findElements(By.cssSelector("th, td"))) {
        cells.add(cell.getAttribute("textContent").strip());
      }
      rows.add(cells);
    }
    return rows;
  }

  private List<String> headers(String chart) {
    return page
        .findElements(By.cssSelector("[data-testid=" + chart + "-figures] thead th"))
        .stream()
        .map(th -> th.getAttribute("textContent").strip())
        .toList();
  }

  /**
   * The campaign's counts: queued, sent, delivered, read, failed, replied, opted out, cancelled.
   */
  private List<String> counts() {
    return page.findElements(By.cssSelector("[data-testid=counts] tbody td")).stream()
        .map(WebElement::getText)
        .toList();
  }

  private String progress() {
    return find("[data-testid=progress] progress").getAttribute("value");
  }

  private String status() {
    return find("[data-testid=campaign-status] .badge").getText();
  }

  private String text(String testId) {
    return find("[data-testid=" + testId + "]").getText();
  }

  private String main() {
    return find("main").getText();
  }

  private WebElement find(String css) {
    return page.findElement(By.cssSelector(css));
  }

  private void fill(String name, String value) {
    ConsoleClicks.fill(page, name, value);
  }

  /** Reloads the page until {@code done} holds: the runner works in its own time. */
  private void refreshUntil(Predicate<ChromeDriver> done) {
    ConsoleClicks.waitUpTo(page, 10)
        .until(
            d -> {
              page.navigate().refresh();
              return done.test(page);
            });
  }

  private void submit(String buttonText) {
    ConsoleClicks.submit(page, buttonText);
  }

  private void submitConfirmed(String buttonText) {
    ConsoleClicks.submitConfirmed(page, buttonText);
  }

  private void click(WebElement button) {
    ConsoleClicks.click(page, button);
  }
}
