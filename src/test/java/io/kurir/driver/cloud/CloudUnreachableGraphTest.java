package io.kurir.driver.cloud;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import com.sun.net.httpserver.HttpServer;
import io.kurir.message.MessageState;
import io.kurir.testing.Eventually;
import io.kurir.testing.LogCapture;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * A Cloud API send that cannot reach the Graph API leaves a log line that says where Kurir tried:
 * one per outage, not one per message, and one when Graph answers again.
 */
@Isolated("reads the io.kurir log (LogCapture), which every gateway in this JVM writes to")
class CloudUnreachableGraphTest {
  @TempDir Path dir;

  @Test
  void aSendThatCannotReachGraphIsLoggedOncePerOutageWithWhereItTried() throws IOException {
    int deadPort;
    try (ServerSocket s = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
      deadPort = s.getLocalPort(); // closed again: nobody listens there
    }
    String graph = "http://127.0.0.1:" + deadPort;
    try (LogCapture logs = LogCapture.of();
        CloudFixture f = new CloudFixture(dir, "--drivers.cloud.graph-url=" + graph)) {
      long first = f.sendAsync(f.customer(), "satu");
      long second = f.sendAsync(f.customer(), "dua");
      f.awaitState(first, MessageState.FAILED);
      f.awaitState(second, MessageState.FAILED);
      assertThat(f.message(first).reason()).contains("driver_error");

      var lines = logs.lines(l -> l.message().contains("Graph API"));
      assertThat(lines).as(logs.lines().toString()).hasSize(1);
      assertThat(lines.getFirst().level()).isEqualTo(Level.WARN);
      assertThat(lines.getFirst().message())
          .contains("the Graph API at " + graph + " cannot be reached")
          .contains("ConnectException");
      assertThat(logs.lines(LogCapture.Line::stackTrace)).isEmpty();

      // Graph answers on that address again (a stand-in that accepts any message): one INFO line.
      HttpServer back = HttpServer.create(new InetSocketAddress("127.0.0.1", deadPort), 0);
      back.createContext(
          "/",
          exchange -> {
            byte[] body =
                "{\"messaging_product\":\"whatsapp\",\"messages\":[{\"id\":\"wamid.back\"}]}"
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
          });
      back.start();
      try {
        long third = f.sendAsync(f.customer(), "tiga");
        Eventually.until("sent once Graph answers", () -> f.networkId(third).isPresent());
        var again = logs.lines(l -> l.message().contains("Graph API"));
        assertThat(again).hasSize(2);
        assertThat(again.getLast().level()).isEqualTo(Level.INFO);
        assertThat(again.getLast().message())
            .contains("the Graph API at " + graph + " answers again");
      } finally {
        back.stop(0);
      }
    }
  }
}
