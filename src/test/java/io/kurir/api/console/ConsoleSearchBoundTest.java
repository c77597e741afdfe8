package io.kurir.api.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.testing.TestGateway;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's message search by text is bounded like every search: a text over 1,000 characters
 * is refused with a page that says so, before it reaches the database.
 */
class ConsoleSearchBoundTest {
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

  private String cookie() throws Exception {
    HttpResponse<String> signIn =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(kurir.url("/console/sign-in")))
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "as=operator&secret="
                                + URLEncoder.encode(
                                    TestGateway.ADMIN_TOKEN, StandardCharsets.UTF_8)))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(signIn.statusCode()).isEqualTo(303);
    return signIn.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
  }

  @Test
  void aTextOverAThousandCharactersIsRefusedWithAPageThatSaysSo() throws Exception {
    String cookie = cookie();
    TestGateway.Reply tooLong =
        kurir.get("/console/messages?text=" + "a".repeat(1001), "Cookie", cookie);
    assertThat(tooLong.status()).isEqualTo(400);
    assertThat(tooLong.body()).contains("a search may be at most 1000 characters long");

    TestGateway.Reply atLimit =
        kurir.get("/console/messages?text=" + "a".repeat(1000), "Cookie", cookie);
    assertThat(atLimit.status()).isEqualTo(200);
  }
}
