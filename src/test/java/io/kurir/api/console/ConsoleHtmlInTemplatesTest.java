package io.kurir.api.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.Partner;
import io.kurir.testing.TestGateway;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's HTML is written in templates (src/main/jte), which escape by default, never in Java
 * strings: no page can forget to escape what a user typed.
 */
class ConsoleHtmlInTemplatesTest {
  private static final Path CONSOLE = Path.of("src/main/java/io/kurir/api/console");

  /** A string literal that opens or closes an HTML element: {@code "<p"}, {@code "</td>"}. */
  private static final Pattern TAG_IN_LITERAL = Pattern.compile("\"[^\"]*</?[a-z][a-z0-9]*[ >]");

  @Test
  void noConsoleSourceWritesHtml() throws IOException {
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(CONSOLE)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
          if (TAG_IN_LITERAL.matcher(lines.get(i)).find()) {
            found.add(file.getFileName() + ":" + (i + 1) + ": " + lines.get(i).strip());
          }
        }
      }
    }
    assertThat(found).as("HTML written in Java under api/console").isEmpty();
    assertThat(CONSOLE.resolve("Html.java")).as("the hand-written escaper").doesNotExist();
    assertThat(Path.of("src/main/jte/layout.jte")).exists();
  }

  @Test
  void whatUsersTypedIsEscapedOnEveryPageThatShowsIt(@TempDir Path dir) throws Exception {
    try (TestGateway kurir = TestGateway.start(dir)) {
      String hostile = "<script>alert(1)</script>\"'";
      Partner partner = kurir.gateway().tenants().createPartner(hostile, "");
      License license =
          kurir.gateway().tenants().createLicense(partner.id(), hostile, "", null, List.of());
      Device device = kurir.gateway().tenants().createDevice(license.id(), "081234567891", null);
      ConsoleClient console = new ConsoleClient(kurir);
      assertThat(
              console
                  .post(
                      "/console/licenses/" + license.id() + "/auto-replies",
                      "keyword",
                      "halo",
                      "type",
                      "match",
                      "response",
                      hostile)
                  .statusCode())
          .isEqualTo(303);
      for (String path :
          List.of(
              "/console",
              "/console/partners",
              "/console/licenses",
              "/console/devices",
              "/console/devices/" + device.id(),
              "/console/licenses/" + license.id() + "/auto-replies?test=halo",
              "/console/partners?q=" + java.net.URLEncoder.encode(hostile, "UTF-8"))) {
        String page = console.get(path).body();
        assertThat(page).as(path).doesNotContain("<script>alert");
        assertThat(page).as(path).contains("&lt;script&gt;alert(1)&lt;/script&gt;");
      }
    }
  }
}
