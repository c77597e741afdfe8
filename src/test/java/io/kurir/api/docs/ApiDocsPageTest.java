package io.kurir.api.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.Gateway;
import io.kurir.testing.Chromium;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /openapi.json} and the {@code /docs} page: the page and everything it loads come from the
 * gateway (no address elsewhere, and a Content-Security-Policy that refuses any), and a real
 * browser renders the document from it.
 */
class ApiDocsPageTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final Pattern EXTERNAL = Pattern.compile("(?i)(https?:)?//[a-z0-9.-]+\\.[a-z]{2,}");

  @TempDir Path dir;
  TestGateway kurir;

  @BeforeEach
  void start() {
    kurir = TestGateway.start(dir);
  }

  @AfterEach
  void stop() {
    kurir.close();
  }

  @Test
  void theDocumentIsServedAsJson() throws Exception {
    Reply r = kurir.get("/openapi.json");
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.contentType()).startsWith("application/json");
    JsonNode doc = JSON.readTree(r.body());
    assertThat(doc.path("openapi").asText()).isEqualTo("3.1.0");
    assertThat(doc.path("info").path("version").asText()).isEqualTo(Gateway.VERSION);
    assertThat(doc.path("paths").has("/api/send_message")).isTrue();
    assertThat(doc.path("paths").path("/api/check_number").toString()).contains("unknow");
  }

  @Test
  void thePageAndWhatItLoadsComeFromTheGateway() {
    Reply page = kurir.get("/docs");
    assertThat(page.status()).isEqualTo(200);
    assertThat(page.contentType()).startsWith("text/html");
    assertThat(EXTERNAL.matcher(page.body()).find()).as(page.body()).isFalse();
    assertThat(header("/docs", "Content-Security-Policy"))
        .contains("default-src 'none'", "script-src 'self'", "connect-src 'self'");
    assertThat(kurir.get("/docs/").status()).isEqualTo(200);

    List<String> loaded = new ArrayList<>();
    Matcher m = Pattern.compile("(?:href|src)=\"([^\"]+)\"").matcher(page.body());
    while (m.find()) {
      loaded.add(m.group(1));
    }
    assertThat(loaded)
        .contains("/docs/swagger-ui.css", "/docs/swagger-ui-bundle.js", "/docs/kurir-docs.js");
    for (String path : loaded) {
      assertThat(kurir.get(path).status()).as(path).isEqualTo(200);
    }

    // The initializer: this gateway's document, no validator badge (an image from elsewhere).
    String init = kurir.get("/docs/kurir-docs.js").body();
    assertThat(init).contains("url: \"/openapi.json\"", "validatorUrl: null");
    assertThat(EXTERNAL.matcher(init).find()).as(init).isFalse();
    String css = kurir.get("/docs/swagger-ui.css").body();
    assertThat(css)
        .doesNotContainPattern("(?i)url\\(\\s*['\"]?(https?:)?//")
        .doesNotContain("@import");
    assertThat(kurir.get("/docs/swagger-ui-bundle.js").contentType()).startsWith("text/javascript");

    Reply unknown = kurir.get("/docs/index.html");
    assertThat(unknown.status()).isEqualTo(404);
    assertThat(unknown.body()).contains("\"error\":\"not_found\"");
  }

  @Test
  @Tag("browser")
  void aBrowserRendersTheDocumentFromTheGatewayAlone() throws Exception {
    // Deep link to the sandbox tag: its operations are path items shared by reference, which the
    // page must resolve from the document it fetched.
    String dom = Chromium.renderedDom(kurir.url("/docs#/Sandbox"), dir);
    assertThat(dom).contains("Kurir", "operations-tag-Eco_API", "operations-tag-Admin_API");
    assertThat(dom)
        .contains("data-path=\"/sandbox/devices/{device}/pair\"")
        .doesNotContain("errors-wrapper");
  }

  private String header(String path, String name) throws RuntimeException {
    try {
      HttpResponse<Void> r =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(kurir.url(path))).GET().build(),
                  HttpResponse.BodyHandlers.discarding());
      return r.headers().firstValue(name).orElse("");
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
