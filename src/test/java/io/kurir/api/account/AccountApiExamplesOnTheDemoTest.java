package io.kurir.api.account;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.Gateway;
import io.kurir.config.SettingsLoader;
import io.kurir.config.SettingsLoader.Profile;
import io.kurir.tenant.DemoAccount;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Account API examples of the docs the README links to ({@code docs/account-partner-api.md}),
 * run exactly as written against {@code ./kurir demo}, whose license has several devices: the
 * legacy send without {@code no_wa} goes out through the license's primary device (issue 25, item
 * 3: it answered {@code no_wa_empty}).
 */
class AccountApiExamplesOnTheDemoTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String DOCS_ADDRESS = "http://127.0.0.1:8080";

  @TempDir Path dir;

  @Test
  void theDocumentedAccountApiCommandsAnswerAsDocumentedOnTheDemo() throws Exception {
    List<String> commands = accountApiCommands();
    String send =
        commands.stream()
            .filter(c -> c.contains("/v2.0/send-message"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("the docs show no /v2.0/send-message example"));
    assertThat(send)
        .as("the example names no sender, as the public clients")
        .doesNotContain("no_wa");

    try (Gateway demo =
        Gateway.start(
            SettingsLoader.load(Profile.DEMO, List.of("--port=0"), Map.of(), dir),
            Clock.systemUTC())) {
      assertThat(demo.tenants().devicesOf(demo.tenants().licenses().getFirst()))
          .as("the demo license has several devices")
          .hasSizeGreaterThan(1);

      JsonNode sent = JSON.readTree(run(send.replace(DOCS_ADDRESS, demo.baseUrl())));
      assertThat(sent.get("status").asText()).as(sent.toString()).isEqualTo("success");
      assertThat(sent.get("message").asText()).isEqualTo("sent");
      assertThat(sent.get("msg_id").asText()).matches("\\d+");
      assertThat(demo.sandbox().inbox("+6281234567890"))
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.text()).isEqualTo("Halo & selamat");
                assertThat(e.from())
                    .as("the primary device: the paired demo device")
                    .isEqualTo(DemoAccount.first(demo.tenants()).number());
              });

      for (String command : commands) {
        String reply = run(command.replace(DOCS_ADDRESS, demo.baseUrl()));
        assertThat(reply).as(command).doesNotContain("\"failed\"").startsWith("{");
      }
    }
  }

  @Test
  void theReadmesLegacySendAnswersSentOnTheDemo() throws Exception {
    List<String> sends =
        curlCommands(Files.readString(Path.of("README.md"))).stream()
            .filter(c -> c.contains("/v2.0/send-message"))
            .toList();
    assertThat(sends).as("the README shows the legacy send").isNotEmpty();

    try (Gateway demo =
        Gateway.start(
            SettingsLoader.load(Profile.DEMO, List.of("--port=0"), Map.of(), dir),
            Clock.systemUTC())) {
      for (String send : sends) {
        String reply = run(send.replace(DOCS_ADDRESS, demo.baseUrl()));
        assertThat(reply)
            .matches("\\{\"status\":\"success\",\"message\":\"sent\",\"msg_id\":\"\\d+\"}");
      }
    }
  }

  /** The curl commands of the Account API section's example block, continuation lines joined. */
  private static List<String> accountApiCommands() throws IOException {
    String doc = Files.readString(Path.of("docs/account-partner-api.md"));
    String section = doc.substring(doc.indexOf("## Account API"), doc.indexOf("## Partner API"));
    String block = section.substring(section.indexOf("```sh") + 5);
    return curlCommands(block.substring(0, block.indexOf("```")));
  }

  /** Each curl command of {@code text}, with its continuation lines joined. */
  private static List<String> curlCommands(String text) {
    Matcher m = Pattern.compile("(?m)^\\s*(curl .*)$").matcher(text.replace("\\\n", " "));
    List<String> out = new ArrayList<>();
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  private static String run(String command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true).start();
    assertThat(p.waitFor(20, TimeUnit.SECONDS)).as("curl finished").isTrue();
    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
  }
}
