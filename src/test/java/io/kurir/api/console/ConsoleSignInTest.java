package io.kurir.api.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.console.SignInLimiter;
import io.kurir.tenant.Device;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.WebhookReceiver;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console over plain HTTP: the sign-in cookie, the CSRF check, the limit on guessing, and the
 * operators' actions the browser test does not click (renew, switch off, rotate), and what keeps
 * them safe: a reload repeats nothing, destructive buttons ask, a refused form keeps what was
 * typed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleSignInTest {
  TestGateway kurir;
  WebhookReceiver receiver;
  final HttpClient http =
      HttpClient.newBuilder()
          .followRedirects(HttpClient.Redirect.NEVER)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  @BeforeAll
  void start(@TempDir Path dir) {
    kurir =
        TestGateway.start(
            dir, "--http.trusted-proxies=127.0.0.1", "--media.allow-private-addresses=true");
    receiver = new WebhookReceiver();
  }

  @AfterAll
  void stop() {
    receiver.close();
    kurir.close();
  }

  private HttpResponse<String> get(String path, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(kurir.url(path))).GET();
    if (headers.length > 0) {
      b.headers(headers);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String path, String form, String... headers) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(kurir.url(path)))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form));
    if (headers.length > 0) {
      b.headers(headers);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String form(String... pairs) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < pairs.length; i += 2) {
      s.append(s.isEmpty() ? "" : "&")
          .append(pairs[i])
          .append('=')
          .append(URLEncoder.encode(pairs[i + 1], StandardCharsets.UTF_8));
    }
    return s.toString();
  }

  private String signIn(String... headers) throws Exception {
    HttpResponse<String> r =
        post(
            "/console/sign-in", form("as", "operator", "secret", TestGateway.ADMIN_TOKEN), headers);
    assertThat(r.statusCode()).isEqualTo(303);
    return r.headers().firstValue("Set-Cookie").orElseThrow();
  }

  private static String cookieOf(String setCookie) {
    return setCookie.substring(0, setCookie.indexOf(';'));
  }

  @Test
  void pagesAskForASignInAndTheCookieIsHttpOnlySameSiteAndExpires() throws Exception {
    HttpResponse<String> page = get("/console/devices");
    assertThat(page.statusCode()).isEqualTo(303);
    assertThat(page.headers().firstValue("Location")).contains("/console/sign-in");

    String setCookie = signIn();
    assertThat(setCookie)
        .startsWith(ConsoleRoutes.COOKIE + "=")
        .containsIgnoringCase("HttpOnly")
        .containsIgnoringCase("SameSite=Lax")
        .containsIgnoringCase("Max-Age=43200")
        .containsIgnoringCase("Path=/console")
        .doesNotContainIgnoringCase("Secure");
    assertThat(setCookie).doesNotContain(TestGateway.ADMIN_TOKEN);
    HttpResponse<String> dashboard = get("/console", "Cookie", cookieOf(setCookie));
    assertThat(dashboard.statusCode()).isEqualTo(200);
    assertThat(dashboard.headers().firstValue("Content-Type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
    assertThat(dashboard.headers().firstValue("Cache-Control")).contains("no-store");
    for (String path :
        List.of(
            "/console/schedules",
            "/console/webhooks?state=failed",
            "/console/messages?text=x&state=read&date=2026-01-01",
            "/console/devices?q=0812")) {
      assertThat(get(path, "Cookie", cookieOf(setCookie)).statusCode()).as(path).isEqualTo(200);
    }
    assertThat(get("/console/messages?state=nonsense", "Cookie", cookieOf(setCookie)).statusCode())
        .isEqualTo(400);

    // Behind a TLS-terminating proxy the cookie is Secure.
    assertThat(signIn("X-Forwarded-Proto", "https")).containsIgnoringCase("Secure");
  }

  @Test
  void aPostWithoutTheSessionsCsrfTokenChangesNothing() throws Exception {
    String cookie = cookieOf(signIn());
    int before = kurir.gateway().tenants().partners().size();
    HttpResponse<String> forged =
        post("/console/partners", form("name", "Forged"), "Cookie", cookie);
    assertThat(forged.statusCode()).isEqualTo(403);
    assertThat(forged.body()).contains("expired");
    HttpResponse<String> wrong =
        post("/console/partners", form("name", "Forged", "csrf", "guess"), "Cookie", cookie);
    assertThat(wrong.statusCode()).isEqualTo(403);
    assertThat(kurir.gateway().tenants().partners()).hasSize(before);

    Matcher csrf =
        Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"")
            .matcher(get("/console/partners", "Cookie", cookie).body());
    assertThat(csrf.find()).isTrue();
    HttpResponse<String> real =
        post("/console/partners", form("name", "Real", "csrf", csrf.group(1)), "Cookie", cookie);
    assertThat(real.statusCode()).isEqualTo(303);
    assertThat(kurir.gateway().tenants().partners()).hasSize(before + 1);

    // Signed out, the same cookie opens nothing any more.
    post("/console/sign-out", form("csrf", csrf.group(1)), "Cookie", cookie);
    assertThat(get("/console", "Cookie", cookie).statusCode()).isEqualTo(303);
  }

  @Test
  void anOperatorRenewsALicenseSwitchesADeviceOffAndRotatesItsKey() throws Exception {
    String cookie = cookieOf(signIn());
    Matcher csrf =
        Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"")
            .matcher(get("/console/licenses", "Cookie", cookie).body());
    assertThat(csrf.find()).isTrue();
    String token = csrf.group(1);
    io.kurir.tenant.Device device = kurir.newDevice(io.kurir.testing.Numbers.fresh(), true);
    long license = device.licenseId();

    String renew = "/console/licenses/" + license + "/expires";
    HttpResponse<String> renewed =
        post(renew, form("csrf", token, "expires", "2031-12-31"), "Cookie", cookie);
    assertThat(renewed.statusCode()).isEqualTo(303);
    assertThat(kurir.gateway().tenants().license(license).expiresOn())
        .contains(java.time.LocalDate.of(2031, 12, 31));
    HttpResponse<String> badDate =
        post(renew, form("csrf", token, "expires", "31/12/2031"), "Cookie", cookie);
    assertThat(badDate.statusCode()).isEqualTo(400);
    assertThat(badDate.body()).contains("YYYY-MM-DD");

    post("/console/devices/" + device.id() + "/disable", form("csrf", token), "Cookie", cookie);
    assertThat(kurir.gateway().tenants().device(device.id()).disabled()).isTrue();
    post("/console/devices/" + device.id() + "/enable", form("csrf", token), "Cookie", cookie);
    assertThat(kurir.gateway().tenants().device(device.id()).disabled()).isFalse();

    HttpResponse<String> rotated =
        post(
            "/console/devices/" + device.id() + "/rotate",
            form("csrf", token, "credential", "key"),
            "Cookie",
            cookie);
    String newKey = kurir.gateway().tenants().device(device.id()).ecoKey();
    assertThat(newKey).isNotEqualTo(device.ecoKey());
    assertThat(shownAfter(rotated, cookie).body())
        .contains(newKey)
        .contains("does not show them again");
    assertThat(get("/console/devices/" + device.id(), "Cookie", cookie).body())
        .doesNotContain(newKey);
    HttpResponse<String> missing = get("/console/devices/999", "Cookie", cookie);
    assertThat(missing.statusCode()).isEqualTo(404);
    assertThat(missing.body()).contains("href=\"/console/partners\""); // the navigation, still
  }

  @Test
  void anOperatorDeletesADeviceFromItsPageAfterBeingAsked() throws Exception {
    String cookie = cookieOf(signIn());
    String token = csrfOf(cookie);
    io.kurir.tenant.Device device = kurir.newDevice(io.kurir.testing.Numbers.fresh(), true);
    String page = "/console/devices/" + device.id();
    assertThat(get(page, "Cookie", cookie).body())
        .containsPattern("action=\"" + page + "/delete\" data-confirm=\"Delete device [^\"]+\"");

    HttpResponse<String> forged = signedInPost(cookie, page + "/delete", "csrf", "guess");
    assertThat(forged.statusCode()).isEqualTo(403);
    assertThat(kurir.gateway().tenants().devices()).extracting(d -> d.id()).contains(device.id());

    HttpResponse<String> deleted = signedInPost(cookie, page + "/delete", "csrf", token);
    assertThat(deleted.statusCode()).isEqualTo(303);
    assertThat(deleted.headers().firstValue("Location")).contains("/console/devices");
    assertThat(kurir.gateway().tenants().devices())
        .extracting(d -> d.id())
        .doesNotContain(device.id());
    assertThat(get(page, "Cookie", cookie).statusCode()).isEqualTo(404);
    assertThat(signedInPost(cookie, page + "/delete", "csrf", token).statusCode()).isEqualTo(404);
  }

  /** A form sent by the signed-in browser of {@code cookie}: the form's fields in pairs. */
  private HttpResponse<String> signedInPost(String cookie, String path, String... pairs)
      throws Exception {
    return post(path, form(pairs), "Cookie", cookie);
  }

  /** The page at {@code path}, asked for again until it holds {@code wanted}. */
  private String eventuallyContaining(String cookie, String path, String wanted) {
    java.util.concurrent.atomic.AtomicReference<String> page =
        new java.util.concurrent.atomic.AtomicReference<>("");
    io.kurir.testing.Eventually.until(
        path + " shows " + wanted,
        () -> {
          try {
            page.set(get(path, "Cookie", cookie).body());
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
          return page.get().contains(wanted);
        });
    return page.get();
  }

  /** The session's CSRF token, read from a page's form. */
  private String csrfOf(String cookie) throws Exception {
    Matcher csrf =
        Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"")
            .matcher(get("/console/licenses", "Cookie", cookie).body());
    assertThat(csrf.find()).isTrue();
    return csrf.group(1);
  }

  /** The once-shown cookie a POST set: its "name=value". */
  private static String onceCookie(HttpResponse<String> posted) {
    return cookieOf(
        posted.headers().allValues("Set-Cookie").stream()
            .filter(c -> c.startsWith(OnceShown.COOKIE + "="))
            .findFirst()
            .orElseThrow());
  }

  /** Follows a POST's redirect to the page that shows new credentials, as a browser would. */
  private HttpResponse<String> shownAfter(HttpResponse<String> posted, String cookie)
      throws Exception {
    assertThat(posted.statusCode()).isEqualTo(303);
    assertThat(posted.headers().firstValue("Location")).contains(OnceShown.PATH);
    HttpResponse<String> shown = get(OnceShown.PATH, "Cookie", cookie + "; " + onceCookie(posted));
    assertThat(shown.statusCode()).isEqualTo(200);
    return shown;
  }

  @Test
  void reloadingThePageOfANewCredentialShowsItNoMoreAndRotatesNothing() throws Exception {
    String cookie = cookieOf(signIn());
    String token = csrfOf(cookie);
    Device device = kurir.newDevice(Numbers.fresh(), true);
    HttpResponse<String> rotated =
        signedInPost(
            cookie,
            "/console/devices/" + device.id() + "/rotate",
            "csrf",
            token,
            "credential",
            "key");
    String newKey = kurir.gateway().tenants().device(device.id()).ecoKey();
    // Neither the address nor the cookie carries the key itself.
    assertThat(rotated.headers().firstValue("Location").orElseThrow()).doesNotContain(newKey);
    assertThat(onceCookie(rotated)).doesNotContain(newKey);
    // Another session cannot read what was kept for this one.
    String other = cookieOf(signIn());
    assertThat(get(OnceShown.PATH, "Cookie", other + "; " + onceCookie(rotated)).body())
        .doesNotContain(newKey)
        .contains("shown-already");

    HttpResponse<String> shown = shownAfter(rotated, cookie);
    assertThat(shown.body()).contains(newKey).contains("Back to the device");
    assertThat(shown.headers().allValues("Set-Cookie"))
        .anySatisfy(
            c ->
                assertThat(c)
                    .startsWith(OnceShown.COOKIE + "=;")
                    .contains("Expires=Thu, 01 Jan 1970"));
    // The reload: the browser has dropped the cookie; nothing is rotated again, nor shown.
    HttpResponse<String> reload = get(OnceShown.PATH, "Cookie", cookie);
    assertThat(reload.statusCode()).isEqualTo(200);
    assertThat(reload.body()).contains("shown-already").doesNotContain(newKey);
    assertThat(kurir.gateway().tenants().device(device.id()).ecoKey()).isEqualTo(newKey);

    // The partner's and the license's new secrets take the same way.
    long license = device.licenseId();
    long partner = kurir.gateway().tenants().license(license).partnerId();
    HttpResponse<String> partnerSecret =
        signedInPost(cookie, "/console/partners/" + partner + "/rotate-secret", "csrf", token);
    // Stored as its hash: the page shows the secret whose hash is stored.
    String stored = kurir.gateway().tenants().partner(partner).basicSecret();
    assertThat(
            java.util.regex.Pattern.compile("[A-Za-z0-9]{32}")
                .matcher(shownAfter(partnerSecret, cookie).body())
                .results()
                .map(java.util.regex.MatchResult::group))
        .anyMatch(shownSecret -> io.kurir.tenant.Credentials.matches(stored, shownSecret));
    HttpResponse<String> webhookSecret =
        signedInPost(
            cookie, "/console/licenses/" + license + "/rotate-webhook-secret", "csrf", token);
    assertThat(shownAfter(webhookSecret, cookie).body())
        .contains(kurir.gateway().tenants().license(license).webhookSecret());
    // A lost license code cannot be read back (it is stored as its hash): it is replaced.
    String codeBefore = kurir.gateway().tenants().license(license).code();
    HttpResponse<String> code =
        signedInPost(cookie, "/console/licenses/" + license + "/rotate-code", "csrf", token);
    String codeStored = kurir.gateway().tenants().license(license).code();
    assertThat(codeStored).isNotEqualTo(codeBefore);
    String codePage = shownAfter(code, cookie).body();
    assertThat(codePage).contains("New license code");
    assertThat(
            java.util.regex.Pattern.compile("[A-Za-z0-9]{24,}")
                .matcher(codePage)
                .results()
                .map(java.util.regex.MatchResult::group))
        .anyMatch(shownCode -> io.kurir.tenant.Credentials.matches(codeStored, shownCode));
  }

  @Test
  void actionsThatCannotBeUndoneAskFirstAndSwitchOffLooksTheSameEverywhere() throws Exception {
    String cookie = cookieOf(signIn());
    Device device = kurir.newDevice(Numbers.fresh(), true);
    Pattern switchOff =
        Pattern.compile(
            "<form[^>]*action=\"/console/devices/"
                + device.id()
                + "/disable\" data-confirm=\"[^\"]+\">.*?<button type=\"submit\""
                + " class=\"danger\">Switch off</button>");
    assertThat(get("/console/devices", "Cookie", cookie).body()).containsPattern(switchOff);
    String page = get("/console/devices/" + device.id(), "Cookie", cookie).body();
    assertThat(page).containsPattern(switchOff);
    assertThat(page).containsPattern("action=\"[^\"]*/rotate\" data-confirm=");
    String partners = get("/console/partners", "Cookie", cookie).body();
    assertThat(partners).containsPattern("/rotate-secret\" data-confirm=");
    assertThat(partners).containsPattern("/disable\" data-confirm=");
    String licenses = get("/console/licenses", "Cookie", cookie).body();
    assertThat(licenses).containsPattern("/rotate-webhook-secret\" data-confirm=");
    assertThat(licenses).containsPattern("/rotate-code\" data-confirm=");
    assertThat(licenses).containsPattern("/disable\" data-confirm=");
  }

  @Test
  void aRefusedFormComesBackOnItsOwnPageWithWhatWasTyped() throws Exception {
    String cookie = cookieOf(signIn());
    String token = csrfOf(cookie);
    Device device = kurir.newDevice(Numbers.fresh(), true);
    HttpResponse<String> refused =
        signedInPost(
            cookie,
            "/console/devices/" + device.id() + "/send",
            "csrf",
            token,
            "to",
            "abc",
            "text",
            "Halo <Budi>");
    assertThat(refused.statusCode()).isEqualTo(400);
    assertThat(refused.body())
        .contains("data-testid=\"error\">That is not a phone number.")
        .contains("<title>Device " + device.number())
        .contains("href=\"/console/partners\"") // the navigation
        .contains("name=\"to\" value=\"abc\"")
        .contains(">Halo &lt;Budi&gt;</textarea>");

    // Renewing without a date says what is missing, on the licenses page.
    HttpResponse<String> noDate =
        signedInPost(
            cookie,
            "/console/licenses/" + device.licenseId() + "/expires",
            "csrf",
            token,
            "expires",
            "");
    assertThat(noDate.statusCode()).isEqualTo(400);
    assertThat(noDate.body()).contains("Choose the new expiry date").contains("<title>Licenses");
    // Running without an expiry is a button of its own.
    signedInPost(
        cookie,
        "/console/licenses/" + device.licenseId() + "/expires",
        "csrf",
        token,
        "expires",
        "2030-01-31");
    assertThat(get("/console/licenses", "Cookie", cookie).body()).contains("Never expires");
    assertThat(
            signedInPost(
                    cookie, "/console/licenses/" + device.licenseId() + "/no-expiry", "csrf", token)
                .statusCode())
        .isEqualTo(303);
    assertThat(kurir.licenseOf(device).expiresOn()).isEmpty();
  }

  @Test
  void pagesWithTimesNameTheirZoneAndStatesHaveOneName() throws Exception {
    String cookie = cookieOf(signIn());
    String zone = kurir.gateway().settings().zone().getId();
    Device device = kurir.newDevice(Numbers.fresh(), false);
    kurir.sandbox().pair(device.id(), device.number());
    for (String path :
        List.of(
            "/console",
            "/console/devices/" + device.id(),
            "/console/messages",
            "/console/webhooks")) {
      assertThat(get(path, "Cookie", cookie).body())
          .as(path)
          .contains("Times in " + zone + " (UTC");
    }
    // The device's history names the state before linking as the lists do: "not linked".
    String page =
        eventuallyContaining(cookie, "/console/devices/" + device.id(), "</span> → <span");
    String history = page.substring(page.indexOf("<h2>History</h2>"));
    assertThat(history).contains(">not linked</span> →").doesNotContain(">none<");
  }

  @Test
  void theWebhooksPageOpensOnEveryRecentDelivery() throws Exception {
    String cookie = cookieOf(signIn());
    String token = csrfOf(cookie);
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String url = receiver.url("/states-" + device.id());
    assertThat(
            signedInPost(
                    cookie,
                    "/console/devices/" + device.id() + "/webhooks",
                    "csrf",
                    token,
                    "outgoing",
                    url)
                .statusCode())
        .isEqualTo(303);
    kurir.sendAsync(device, Numbers.fresh(), "did my webhook fire?");
    String page = eventuallyContaining(cookie, "/console/webhooks", url);
    assertThat(page).contains(url).contains("data-testid=\"delivery-counts\"");
    assertThat(page).containsPattern("<option value=\"all\" selected>");
  }

  @Test
  void guessingIsCutShortAndTheRightTokenWaitsToo() throws Exception {
    // The guesser comes through the trusted proxy on loopback, from an address of its own.
    String[] guesser = {"X-Forwarded-For", "203.0.113.9"};
    for (int i = 0; i < SignInLimiter.MAX_FAILURES; i++) {
      HttpResponse<String> r =
          post("/console/sign-in", form("as", "customer", "secret", "guess-" + i), guesser);
      assertThat(r.statusCode()).isEqualTo(401);
      assertThat(r.body()).contains("No license or device has that code");
    }
    HttpResponse<String> limited =
        post(
            "/console/sign-in", form("as", "operator", "secret", TestGateway.ADMIN_TOKEN), guesser);
    assertThat(limited.statusCode()).isEqualTo(429);
    assertThat(limited.headers().firstValue("Set-Cookie")).isEmpty();
    // Another address still signs in.
    assertThat(signIn("X-Forwarded-For", "203.0.113.10")).contains(ConsoleRoutes.COOKIE);
  }

  @Test
  void theConsoleServesItsOwnAssetsAndAnswersUnknownPagesWithAPage() throws Exception {
    HttpResponse<String> css = get("/console/assets/console.css");
    assertThat(css.statusCode()).isEqualTo(200);
    assertThat(css.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/css");
    assertThat(get("/console/assets/console.js").body()).contains("data-poll");
    HttpResponse<String> missing = get("/console/assets/../../etc/passwd");
    assertThat(missing.statusCode()).isEqualTo(404);
    HttpResponse<String> unknown = get("/console/no-such-page");
    assertThat(unknown.statusCode()).isIn(303, 404);
  }

  /** Wrong sign-ins sent at once from one address get exactly the bucket's tries, not more. */
  @Test
  void parallelGuessesGetNoMoreTriesThanTheLimit() throws Exception {
    String[] guesser = {"X-Forwarded-For", "203.0.113.77"};
    List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> sent =
        new java.util.ArrayList<>();
    for (int i = 0; i < 60; i++) {
      HttpRequest request =
          HttpRequest.newBuilder(URI.create(kurir.url("/console/sign-in")))
              .header("Content-Type", "application/x-www-form-urlencoded")
              .headers(guesser)
              .POST(HttpRequest.BodyPublishers.ofString(form("as", "customer", "secret", "g" + i)))
              .build();
      sent.add(http.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
    }
    List<Integer> statuses = sent.stream().map(f -> f.join().statusCode()).toList();
    assertThat(statuses.stream().filter(s -> s == 401).count())
        .isEqualTo(SignInLimiter.MAX_FAILURES);
    assertThat(statuses.stream().filter(s -> s == 429).count())
        .isEqualTo(60 - SignInLimiter.MAX_FAILURES);
  }
}
