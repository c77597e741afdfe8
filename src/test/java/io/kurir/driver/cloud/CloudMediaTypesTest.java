package io.kurir.driver.cloud;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.kurir.message.MessageState;
import io.kurir.testing.TestGateway;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Images the Cloud API does not take (a GIF; WebP is a sticker there): refused when the request is
 * accepted, with a 4xx in the family's style, or, fetched only when its turn comes, failed with
 * {@code media_type_not_supported}; nothing reaches the Graph API.
 */
class CloudMediaTypesTest {
  @TempDir Path dir;

  static final byte[] GIF = gif();

  @Test
  void aGifImageIsRefusedAtAcceptOrFailsBeforeTheNetwork() throws IOException {
    HttpServer files = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    files.createContext(
        "/anim.gif",
        ex -> {
          ex.getResponseHeaders().add("Content-Type", "image/gif");
          ex.sendResponseHeaders(200, GIF.length);
          ex.getResponseBody().write(GIF);
          ex.close();
        });
    files.start();
    String url = "http://127.0.0.1:" + files.getAddress().getPort() + "/anim.gif";
    try (CloudFixture f = new CloudFixture(dir)) {
      String to = f.customer();
      TestGateway.Reply sync =
          f.kurir.postJson("/api/send_image_url", f.body(to, "lucu", "url", url));
      assertThat(sync.status()).as(sync.body()).isEqualTo(400);
      assertThat(sync.body()).contains("media_type_not_supported");

      String async = f.postEco("/api/async_send_image_url", f.body(to, "lucu", "url", url));
      long id = Long.parseLong(async);
      f.awaitState(id, MessageState.FAILED);
      assertThat(f.message(id).reason()).contains("media_type_not_supported");
      assertThat(f.graph.uploads()).isZero();
      assertThat(f.graph.posts()).isZero();
    } finally {
      files.stop(0);
    }
  }

  @Test
  void aFileOfATypeMetaDoesNotTakeIsRefusedAtAcceptOrFailsBeforeTheNetwork() throws IOException {
    byte[] binary = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0}; // an executable, not a document
    HttpServer files = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    files.createContext(
        "/tool.bin",
        ex -> {
          ex.sendResponseHeaders(200, binary.length);
          ex.getResponseBody().write(binary);
          ex.close();
        });
    files.start();
    String url = "http://127.0.0.1:" + files.getAddress().getPort() + "/tool.bin";
    try (CloudFixture f = new CloudFixture(dir)) {
      String to = f.customer();
      TestGateway.Reply sync = f.kurir.postJson("/api/send_file_url", f.body(to, "", "url", url));
      assertThat(sync.status()).as(sync.body()).isEqualTo(400);
      assertThat(sync.body()).contains("media_type_not_supported");

      long id = Long.parseLong(f.postEco("/api/async_send_file_url", f.body(to, "", "url", url)));
      f.awaitState(id, MessageState.FAILED);
      assertThat(f.message(id).reason()).contains("media_type_not_supported");
      assertThat(f.graph.uploads()).isZero();
      assertThat(f.graph.posts()).isZero();
    } finally {
      files.stop(0);
    }
  }

  @Test
  void wordExcelAndTextFilesGoWithTheTypesMetaTakes() throws IOException {
    // A .docx is a ZIP and a .txt has no magic number: the name tells what the content cannot.
    byte[] zip = {'P', 'K', 3, 4, 20, 0, 0, 0, 0, 0};
    byte[] ole2 = {
      (byte) 0xD0, (byte) 0xCF, 0x11, (byte) 0xE0, (byte) 0xA1, (byte) 0xB1, 0x1A, (byte) 0xE1, 0, 0
    };
    byte[] text = "Pesanan 42: dikirim hari ini.\n".getBytes(StandardCharsets.UTF_8);
    HttpServer files = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    for (var file :
        java.util.Map.of("/report.docx", zip, "/prices.xls", ole2, "/notes.txt", text).entrySet()) {
      files.createContext(
          file.getKey(),
          ex -> {
            ex.sendResponseHeaders(200, file.getValue().length);
            ex.getResponseBody().write(file.getValue());
            ex.close();
          });
    }
    files.start();
    String base = "http://127.0.0.1:" + files.getAddress().getPort();
    try (CloudFixture f = new CloudFixture(dir)) {
      String to = f.customer();
      for (String name : java.util.List.of("report.docx", "prices.xls", "notes.txt")) {
        long id =
            Long.parseLong(
                f.postEco("/api/async_send_file_url", f.body(to, "", "url", base + "/" + name)));
        io.kurir.testing.Eventually.until(
            name + " ended",
            () ->
                f.message(id).state() == MessageState.DELIVERY
                    || f.message(id).state() == MessageState.FAILED);
        assertThat(f.message(id).state())
            .as(name + ": " + f.message(id).reason())
            .isEqualTo(MessageState.DELIVERY);
        assertThat(f.graph.sent().getLast().body().path("document").path("filename").asText())
            .isEqualTo(name);
      }
      assertThat(f.graph.uploads()).isEqualTo(3);
    } finally {
      files.stop(0);
    }
  }

  /** A 1×1 GIF89a. */
  private static byte[] gif() {
    byte[] head = "GIF89a".getBytes(StandardCharsets.US_ASCII);
    byte[] rest = {
      1,
      0,
      1,
      0,
      (byte) 0x80,
      0,
      0,
      0,
      0,
      0,
      (byte) 0xff,
      (byte) 0xff,
      (byte) 0xff,
      0x21,
      (byte) 0xf9,
      4,
      1,
      0,
      0,
      0,
      0,
      0x2c,
      0,
      0,
      0,
      0,
      1,
      0,
      1,
      0,
      0,
      2,
      2,
      0x44,
      1,
      0,
      0x3b
    };
    byte[] all = new byte[head.length + rest.length];
    System.arraycopy(head, 0, all, 0, head.length);
    System.arraycopy(rest, 0, all, head.length, rest.length);
    return all;
  }
}
