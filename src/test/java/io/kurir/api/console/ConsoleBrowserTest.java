package io.kurir.api.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.testing.Browser;
import io.kurir.testing.Eventually;
import io.kurir.testing.MetaWebhookChecks;
import io.kurir.testing.Numbers;
import io.kurir.testing.RawWebhookReceiver;
import io.kurir.testing.TestGateway;
import io.kurir.testing.WebhookReceiver;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console in a real browser (headless Chromium) against a real gateway on loopback: what an
 * operator and a customer do, click by click. Each page visited is saved as a screenshot under
 * {@code target/console-screenshots/}.
 */
@Tag("browser")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleBrowserTest {
  TestGateway kurir;
  Browser browser;
  ChromeDriver page;
  WebhookReceiver receiver;

  @BeforeAll
  void start(@TempDir Path dir) {
    kurir =
        TestGateway.start(dir, "--media.allow-private-addresses=true", "--webhook.retry-for=1s");
    receiver = new WebhookReceiver();
    browser = Browser.start();
    page = browser.driver();
  }

  @AfterAll
  void stop() {
    if (browser != null) {
      browser.close();
    }
    receiver.close();
    kurir.close();
  }

  @BeforeEach
  void signedOut() {
    open("/console/sign-in"); // cookies are removed for the page's site and path only
    page.manage().deleteAllCookies();
  }

  private void open(String path) {
    page.get(kurir.url(path));
  }

  private WebElement find(String css) {
    return page.findElement(By.cssSelector(css));
  }

  private WebDriverWait waitUpTo(int seconds) {
    return ConsoleClicks.waitUpTo(page, seconds);
  }

  private void signInAsOperator() {
    open("/console");
    assertThat(page.getCurrentUrl()).endsWith("/console/sign-in");
    find("form input[value=operator] ~ label input[name=secret]").sendKeys(TestGateway.ADMIN_TOKEN);
    click(find("#operator-sign-in"));
    assertThat(page.getCurrentUrl()).endsWith("/console");
  }

  private void fill(String name, String value) {
    ConsoleClicks.fill(page, name, value);
  }

  private void submit(String buttonText) {
    ConsoleClicks.submit(page, buttonText);
  }

  private void submitConfirmed(String buttonText) {
    ConsoleClicks.submitConfirmed(page, buttonText);
  }

  private static boolean replaced(WebElement before) {
    return ConsoleClicks.replaced(before);
  }

  private void click(WebElement button) {
    ConsoleClicks.click(page, button);
  }

  private String secret(String label) {
    return find("[data-testid=secret-" + label + "]").getText();
  }

  @Test
  void anOperatorCreatesALicenseAndADeviceLinksItByQrAndSendsFromItsPage() {
    open("/console");
    browser.screenshot("01-sign-in");
    find("form input[value=operator] ~ label input[name=secret]").sendKeys("not-the-token");
    click(find("#operator-sign-in"));
    assertThat(find(".error").getText()).contains("not the admin token");
    signInAsOperator();
    browser.screenshot("02-dashboard-empty");

    open("/console/partners");
    fill("name", "Reseller One");
    submit("Create partner");
    assertThat(secret("basic-secret")).hasSizeGreaterThan(20);
    browser.screenshot("03-partner-created");

    open("/console/licenses");
    fill("name", "Sekolah Harapan");
    fill("expires", "12312099");
    submit("Create license");
    String code = secret("license-code");
    assertThat(code).isNotBlank();
    browser.screenshot("04-license-created");
    License license = kurir.gateway().tenants().licenseByCode(code).orElseThrow();

    open("/console/devices?license=" + license.id());
    String number = Numbers.fresh();
    fill("number", Numbers.national(number));
    new Select(find("main form [name=driver]")).selectByValue("sandbox");
    submit("Create device");
    String key = secret("key");
    assertThat(key).matches("[A-Za-z0-9]{32}");
    browser.screenshot("05-device-created");
    click(page.findElement(By.linkText("Open the device and link it by QR code")));

    WebElement qr = find("[data-testid=qr]");
    assertThat(qr.getAttribute("src")).startsWith("data:image/png;base64,");
    browser.screenshot("06-device-qr");
    Device device = kurir.gateway().tenants().deviceForEcoKey(key);
    // The phone scans the code the page shows: the page turns to "linked" by itself.
    assertThat(kurir.sandbox().scanCurrentCode(device.ref())).isTrue();
    waitUpTo(15)
        .until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("[data-testid=linked]")));
    browser.screenshot("07-device-linked");

    String to = Numbers.fresh();
    fill("to", Numbers.national(to));
    fill("text", "Halo dari konsol");
    submit("Send");
    assertThat(page.getCurrentUrl()).contains("/console/messages/");
    waitUpTo(20)
        .until(
            d -> {
              String state = find("[data-testid=message-state]").getText();
              return state.equals("delivery") || state.equals("read");
            });
    assertThat(kurir.sandbox().inbox(to)).anyMatch(m -> m.text().equals("Halo dari konsol"));
    browser.screenshot("08-message-delivered");

    open("/console/devices/" + device.id());
    browser.screenshot("09-device-page");
    assertThat(find("main").getText()).contains("Halo dari konsol");
    open("/console");
    browser.screenshot("10-dashboard");
    assertThat(find("main").getText()).contains(device.number());
  }

  @Test
  void anOperatorImportsASpreadsheetAfterItsPreviewAndUnsubscribesAContact(@TempDir Path files)
      throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String siti = Numbers.fresh();
    String budi = Numbers.fresh();
    // As a spreadsheet with Indonesian settings saves it: semicolons, national numbers.
    Path csv = files.resolve("murid.csv");
    java.nio.file.Files.writeString(
        csv,
        "Nama;No HP;Tags;Kelas\r\nSiti;"
            + Numbers.national(siti)
            + ";parents;7A\r\nBudi;"
            + Numbers.national(budi)
            + ";parents;7B\r\nSalah;123;parents;7C\r\n");
    signInAsOperator();
    open("/console/licenses");
    click(
        page.findElement(
            By.xpath("//a[@href='/console/licenses/" + device.licenseId() + "/contacts']")));
    assertThat(find("main").getText()).contains("No contact yet.");

    find("main form input[name=file]").sendKeys(csv.toString());
    submit("Preview the import");
    assertThat(find("[data-testid=import-report]").getText())
        .contains("Would import: 2 new")
        .contains("1 of 3 rows refused");
    assertThat(find("[data-testid=refused-rows]").getText()).contains("4").contains("'123'");
    browser.screenshot("20-contacts-import-preview");
    assertThat(kurir.gateway().contactBook().counts(device.licenseId()).contacts()).isZero();

    submit("Import 2 contacts");
    assertThat(find("[data-testid=import-report]").getText()).contains("Imported: 2 new");
    click(page.findElement(By.linkText("Back to the contacts")));
    String table = find("[data-testid=contacts]").getText();
    assertThat(table).contains(siti).contains("Budi").contains("kelas: 7B");
    browser.screenshot("21-contacts");

    WebElement row = page.findElement(By.xpath("//tr[td[normalize-space()='" + siti + "']]"));
    WebElement before = find("main");
    row.findElement(By.xpath(".//button[normalize-space()='Unsubscribe']")).click();
    page.switchTo().alert().accept();
    waitUpTo(10).until(d -> replaced(before));
    assertThat(page.findElement(By.xpath("//tr[td[normalize-space()='" + siti + "']]")).getText())
        .contains("unsubscribed")
        .contains("console");
    assertThat(kurir.gateway().contactBook().get(device.licenseId(), siti).isUnsubscribed())
        .isTrue();
    // Removing them keeps the opt-out, and the question says so (not "an import adds them").
    page.findElement(By.xpath("//tr[td[normalize-space()='" + siti + "']]"))
        .findElement(By.xpath(".//button[normalize-space()='Remove']"))
        .click();
    assertThat(page.switchTo().alert().getText()).contains("Their opt-out stays");
    page.switchTo().alert().dismiss();
  }

  @Test
  void anOperatorReplaysADeadWebhookOnceItsReceiverIsBack() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    receiver.answer(500, "{\"error\": \"database is down\"}");
    signInAsOperator();
    open("/console/devices/" + device.id());
    // A URL of this test's own: other deliveries (other tests, this message's other states) are
    // in the same lists, and may be retried or die at their own pace.
    String url = receiver.url("/status-" + device.id());
    fill("outgoing", url);
    submit("Save webhooks");
    kurir.sendAsync(device, Numbers.fresh(), "a status for a broken receiver");
    // webhook.retry-for is 1 s: the first refusals make the delivery dead.
    open("/console/webhooks?state=dead");
    WebElement dead = eventuallyARow(url, 60);
    assertThat(dead.findElement(By.cssSelector("[data-testid=answer]")).getText())
        .isEqualTo("HTTP 500: {\"error\": \"database is down\"}");
    String id = dead.findElement(By.cssSelector("td[data-label=Id]")).getText();
    browser.screenshot("11-webhooks-dead");

    receiver.answer(200);
    click(dead.findElement(By.xpath(".//button[normalize-space()='Replay']")));
    assertThat(page.getCurrentUrl()).contains("/console/webhooks");
    // The replayed delivery itself (same id) ends delivered.
    open("/console/webhooks?state=delivered");
    WebElement delivered = eventuallyARow(url, 60, id);
    browser.screenshot("12-webhooks-replayed");
    assertThat(delivered.getText()).contains(url);
  }

  /**
   * The row of the deliveries list for {@code url} (and id {@code id}), reloading until it shows.
   */
  private WebElement eventuallyARow(String url, int seconds, String... id) {
    String idTest =
        id.length == 0 ? "" : " and td[@data-label='Id' and normalize-space()='" + id[0] + "']";
    return waitUpTo(seconds)
        // A reload that times out on a busy machine is tried again, not a failure.
        .ignoring(StaleElementReferenceException.class)
        .ignoring(org.openqa.selenium.TimeoutException.class)
        .until(
            d -> {
              d.navigate().refresh();
              return d
                  .findElements(
                      By.xpath(
                          "//main//tr[td[@data-label='URL' and normalize-space()='"
                              + url
                              + "']"
                              + idTest
                              + "]"))
                  .stream()
                  .findFirst()
                  .orElse(null);
            });
  }

  @Test
  void anOperatorSubscribesAUrlInMetasFormatAndSeesItsDeliveries() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    try (RawWebhookReceiver meta = new RawWebhookReceiver()) {
      signInAsOperator();
      open("/console/licenses");
      click(find("main a[href='/console/licenses/" + device.licenseId() + "/webhooks']"));
      assertThat(find("main").getText()).contains("No webhook subscription yet.");
      fill("url", meta.url("/whatsapp"));
      new Select(find("main form select[name=format]")).selectByValue("meta");
      submit("Subscribe");
      String secret = secret("signing-secret");
      assertThat(secret).matches("[0-9a-f]{32}");
      browser.screenshot("16-subscription-secret");

      assertThat(kurir.sandbox().injectIncoming(device.id(), Numbers.fresh(), "Halo")).isTrue();
      Eventually.until("the delivery", () -> meta.at("/whatsapp").size() == 1);
      RawWebhookReceiver.Received delivery = meta.at("/whatsapp").getFirst();
      assertThat(delivery.hubSignature())
          .isEqualTo(MetaWebhookChecks.hubSignature(secret, delivery.body()));
      assertThat(delivery.json().get("object").asText()).isEqualTo("whatsapp_business_account");

      open("/console/licenses/" + device.licenseId() + "/webhooks");
      waitUpTo(20)
          .ignoring(StaleElementReferenceException.class)
          .until(
              d -> {
                d.navigate().refresh();
                return find("[data-testid=subscription]").getText().contains("delivered");
              });
      WebElement subscription = find("[data-testid=subscription]");
      assertThat(subscription.findElement(By.cssSelector("[data-testid=format]")).getText())
          .isEqualTo("meta");
      assertThat(subscription.getText()).contains("message.received").doesNotContain(secret);
      browser.screenshot("17-subscription-deliveries");

      submitConfirmed("Remove");
      assertThat(find("main").getText()).contains("No webhook subscription yet.");
    }
  }

  @Test
  void anAutoReplyAddedInTheConsoleAnswersAnIncomingMessage() {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    signInAsOperator();
    open("/console/licenses/" + device.licenseId() + "/auto-replies");
    fill("keyword", "harga");
    find("main form textarea[name=response]").sendKeys("Harga paket Rp 10.000");
    submit("Add auto-reply");
    browser.screenshot("13-auto-reply-added");
    assertThat(find("main table").getText()).contains("harga").contains("Rp 10.000");

    fill("test", "HARGA");
    submit("Which rule answers?");
    assertThat(find("[data-testid=test-result]").getText()).contains("Rp 10.000");
    browser.screenshot("14-auto-reply-test");

    String customer = Numbers.fresh();
    assertThat(kurir.sandbox().injectIncoming(device.id(), customer, "harga")).isTrue();
    // Waited for where it happens (the customer's phone), then the page is read once: a page
    // reloaded in a loop on a busy machine can have its reload cut short by the next.
    Eventually.until(
        "the auto-reply reached the customer",
        () ->
            kurir.sandbox().inbox(customer).stream().anyMatch(e -> e.text().contains("Rp 10.000")));
    open("/console/messages?number=" + Numbers.national(customer));
    assertThat(find("main").getText()).contains("Rp 10.000");
    browser.screenshot("15-auto-reply-sent");

    open("/console/licenses/" + device.licenseId() + "/auto-replies");
    submitConfirmed("Delete");
    assertThat(find("main").getText()).contains("No auto-reply yet.");
  }

  @Test
  void theSandboxPhoneScansFromTheDevicePageWhichThenLogsTheDeviceOut() {
    Device device = kurir.newDevice(Numbers.fresh(), false);
    signInAsOperator();
    open("/console");
    click(page.findElement(By.linkText(device.number())));
    submit("Scan with the sandbox phone");
    assertThat(find("[data-testid=linked]").getText()).isEqualTo("linked");

    submitConfirmed("Log out"); // "Log the device out?"
    assertThat(find("[data-testid=qr]").getAttribute("src")).startsWith("data:image/png");
    // The history shows the link and the logout (recorded a moment after they happen).
    waitUpTo(10)
        .until(
            d -> {
              d.navigate().refresh();
              return d.findElement(By.xpath("//section[h2='History']"))
                  .getText()
                  .contains("paired");
            });
  }

  @Test
  void aScheduledMessageIsListedAndCancelled() {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String reply =
        kurir
            .postJson(
                "/api/scheduler",
                "{\"key\":\""
                    + device.ecoKey()
                    + "\",\"phone_no\":\""
                    + Numbers.fresh()
                    + "\",\"sch_date\":\"2099-01-01 10:00\",\"api_type\":\"text\","
                    + "\"message\":\"Selamat tahun baru\"}")
            .body();
    assertThat(reply).matches("\\d+");
    signInAsOperator();
    open("/console/schedules");
    assertThat(find("main table").getText()).contains("Selamat tahun baru");
    browser.screenshot("19-schedules");
    submitConfirmed("Cancel");
    assertThat(find("main").getText()).doesNotContain("Selamat tahun baru");
  }

  @Test
  void aCustomerSeesOnlyTheirOwnDevices() {
    Device mine = kurir.newDevice(Numbers.fresh(), false);
    Device theirs = kurir.newDevice(Numbers.fresh(), true);
    String code = kurir.licenseOf(mine).code();

    open("/console/sign-in");
    find("form input[value=customer] ~ label input[name=secret]").sendKeys(code);
    click(find("#customer-sign-in"));
    assertThat(page.getCurrentUrl()).endsWith("/console/my");
    assertThat(page.getCurrentUrl()).doesNotContain(code);
    String home = find("main").getText();
    assertThat(home).contains(mine.number()).doesNotContain(theirs.number());
    browser.screenshot("16-customer-home");

    click(page.findElement(By.linkText(mine.number())));
    String csrf = find("input[name=csrf]").getAttribute("value");
    assertThat(find("[data-testid=qr]").getAttribute("src")).startsWith("data:image/png");
    fill("incoming", receiver.url("/incoming"));
    submit("Save webhooks");
    assertThat(find("main form [name=incoming]").getAttribute("value"))
        .isEqualTo(receiver.url("/incoming"));
    fill("outgoing", "ftp://example.com/hook");
    submit("Save webhooks");
    assertThat(find("[data-testid=error]").getText()).contains("may not call");
    page.navigate().back();
    fill("template", "Halo [kolom2]");
    submit("Get the script");
    assertThat(find("[data-testid=script]").getText()).contains(mine.ecoKey());
    browser.screenshot("17-customer-script");

    for (String path :
        List.of(
            "/console/my/devices/" + theirs.id(),
            "/console/my/devices/" + theirs.id() + "/pairing")) {
      open(path);
      assertThat(find("main").getText()).as(path).contains("No such device");
      assertThat(page.getPageSource()).doesNotContain(theirs.number());
    }
    // Nor can a form of theirs act on it: the customer's own logout button, aimed at the other.
    page.executeScript(
        "var f = document.createElement('form'); f.method = 'post';"
            + " f.action = '/console/my/devices/"
            + theirs.id()
            + "/logout';"
            + " var c = document.createElement('input'); c.type = 'hidden'; c.name = 'csrf';"
            + " c.value = arguments[0]; f.appendChild(c); document.body.appendChild(f); f.submit();",
        csrf);
    waitUpTo(10).until(d -> d.getCurrentUrl().endsWith("/logout"));
    assertThat(find("main").getText()).contains("No such device");
    assertThat(kurir.sandbox().session(theirs.id())).isPresent(); // still linked
    // The operators' pages are not theirs either: they are sent back to their own.
    open("/console/devices/" + theirs.id());
    assertThat(page.getCurrentUrl()).endsWith("/console/my");
    open("/console/messages");
    assertThat(page.getCurrentUrl()).endsWith("/console/my");
  }

  @Test
  void theConsoleReadsOnAPhone() {
    Device device = kurir.newDevice(Numbers.fresh(), false);
    Device sender = kurir.newDevice(Numbers.fresh(), true);
    kurir.sendAsync(sender, Numbers.fresh(), "Pesan yang panjang untuk dibaca di ponsel");
    signInAsOperator();
    try {
      browser.resize(390, 844);
      open("/console/devices/" + device.id());
      // Nothing makes the page wider than the phone.
      Long width = (Long) page.executeScript("return document.documentElement.scrollWidth;");
      assertThat(width).isLessThanOrEqualTo(390L);
      browser.screenshot("18-device-on-a-phone");
      // A list's rows are cards: every cell, the last column too, is in view without scrolling.
      open("/console/messages?device=" + sender.id());
      browser.screenshot("20-messages-on-a-phone");
      for (String column : List.of("Text", "Created")) {
        WebElement cell = find("main td[data-label=" + column + "]");
        Long right =
            (Long)
                page.executeScript(
                    "return Math.ceil(arguments[0].getBoundingClientRect().right);", cell);
        assertThat(right).as(column).isLessThanOrEqualTo(390L);
        assertThat(cell.isDisplayed()).isTrue();
      }
    } finally {
      browser.resize(1280, 1000);
    }
  }

  @Test
  void aCustomerReadsAConversationSeesItsImageAndReplies() throws Exception {
    Device mine = kurir.newDevice(Numbers.fresh(), true);
    String ani = Numbers.fresh();
    incoming(
        mine,
        "{\"from\":\""
            + ani
            + "\",\"name\":\"Ani\",\"type\":\"text\",\"text\":{\"body\":\"Is this in stock?\"}}");
    Path picture =
        kurir.dir().resolve("data").resolve("media").resolve("shelf-" + mine.id() + ".png");
    java.nio.file.Files.createDirectories(picture.getParent());
    // A picture the browser can draw (TestFiles.PNG is only a PNG's signature).
    java.awt.image.BufferedImage drawn =
        new java.awt.image.BufferedImage(40, 30, java.awt.image.BufferedImage.TYPE_INT_RGB);
    javax.imageio.ImageIO.write(drawn, "png", picture.toFile());
    kurir
        .sandbox()
        .injectIncoming(
            new io.kurir.driver.IncomingMessage(
                mine.id(),
                java.util.Optional.of("SHELF-" + mine.id()),
                ani,
                java.util.Optional.empty(),
                "This one",
                java.util.Optional.of(
                    new io.kurir.driver.IncomingMessage.Media("image", "image/png", picture)),
                java.time.Instant.now()));
    incoming(
        mine,
        "{\"from\":\""
            + ani
            + "\",\"type\":\"location\",\"location\":{\"latitude\":-6.2,\"longitude\":106.8,"
            + "\"name\":\"Monas\"}}");
    Eventually.until("three received", () -> kurir.storedIncoming(mine.id()) == 3);

    open("/console/sign-in");
    find("form input[value=customer] ~ label input[name=secret]")
        .sendKeys(kurir.licenseOf(mine).code());
    click(find("#customer-sign-in"));
    click(page.findElement(By.linkText(mine.number())));
    click(find("[data-testid=chats-link]"));
    assertThat(find("[data-testid=chat]").getText()).contains("Ani").contains("Monas");
    assertThat(find("[data-testid=unread]").getText()).isEqualTo("3");
    browser.screenshot("21-conversations");

    click(page.findElement(By.linkText("Ani")));
    assertThat(find("[data-testid=message-text]").getText()).contains("Is this in stock?");
    assertThat(find("[data-testid=message-location]").getText()).contains("Monas");
    WebElement image = find("[data-testid=chat-image]");
    waitUpTo(10)
        .until(
            d ->
                Boolean.TRUE.equals(
                    page.executeScript(
                        "return arguments[0].complete && arguments[0].naturalWidth > 0", image)));
    assertThat(find("[data-testid=message-image]").getText()).contains("This one");
    fill("text", "Yes, two left");
    submit("Send reply");
    Eventually.until(
        "the reply reached the customer's phone",
        () ->
            kurir.sandbox().inbox(ani).stream()
                .anyMatch(m -> m.kind().equals("text") && m.text().equals("Yes, two left")));
    assertThat(find("[data-testid=chat-messages]").getText()).contains("Yes, two left");
    browser.screenshot("22-conversation-replied");

    // Read and answered: nothing unread any more.
    click(page.findElement(By.linkText("All chats")));
    assertThat(page.findElements(By.cssSelector("[data-testid=unread]"))).isEmpty();
  }

  private void incoming(Device device, String json) {
    TestGateway.Reply r =
        kurir.post(
            "/sandbox/devices/" + device.id() + "/incoming",
            json,
            "application/json",
            "Authorization",
            "Bearer " + TestGateway.ADMIN_TOKEN);
    assertThat(r.status()).as(r.body()).isEqualTo(200);
  }
}
