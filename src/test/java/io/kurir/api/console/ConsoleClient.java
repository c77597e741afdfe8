package io.kurir.api.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.testing.TestGateway;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An operator's (or a customer's) browser, over plain HTTP: signs in once, then GETs pages and
 * POSTs forms with the session's cookie and CSRF token. Redirects are not followed, so tests see
 * the 303s.
 */
final class ConsoleClient {
  final HttpClient http =
      HttpClient.newBuilder()
          .followRedirects(HttpClient.Redirect.NEVER)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private final TestGateway kurir;
  final String cookie;
  final String csrf;

  ConsoleClient(TestGateway kurir) throws Exception {
    this(kurir, "operator", TestGateway.ADMIN_TOKEN, "/console/licenses");
  }

  /** A customer's browser, signed in with their license code (or a device key). */
  static ConsoleClient customer(TestGateway kurir, String code) throws Exception {
    return new ConsoleClient(kurir, "customer", code, "/console/my");
  }

  private ConsoleClient(TestGateway kurir, String as, String secret, String home) throws Exception {
    this.kurir = kurir;
    HttpResponse<String> signedIn =
        send(
            HttpRequest.newBuilder(URI.create(kurir.url("/console/sign-in")))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form("as", as, "secret", secret)))
                .build());
    assertThat(signedIn.statusCode()).isEqualTo(303);
    String setCookie = signedIn.headers().firstValue("Set-Cookie").orElseThrow();
    this.cookie = setCookie.substring(0, setCookie.indexOf(';'));
    Matcher token = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(get(home).body());
    assertThat(token.find()).isTrue();
    this.csrf = token.group(1);
  }

  HttpResponse<String> get(String path) throws Exception {
    return send(HttpRequest.newBuilder(URI.create(kurir.url(path))).header("Cookie", cookie).GET());
  }

  /** A form of the signed-in session: its fields in pairs; the CSRF token is added. */
  HttpResponse<String> post(String path, String... pairs) throws Exception {
    return send(
        HttpRequest.newBuilder(URI.create(kurir.url(path)))
            .header("Cookie", cookie)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form(pairs) + "&csrf=" + csrf)));
  }

  HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    return send(request.build());
  }

  HttpResponse<String> send(HttpRequest request) throws Exception {
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  static String form(String... pairs) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < pairs.length; i += 2) {
      s.append(s.isEmpty() ? "" : "&")
          .append(pairs[i])
          .append('=')
          .append(URLEncoder.encode(pairs[i + 1], StandardCharsets.UTF_8));
    }
    return s.toString();
  }
}
