package io.kurir.api.eco;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.tenant.Device;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestFiles;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.testing.TestTables;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** {@code /api/upload/{key}}, {@code /api/upload} and {@code /api/send_image}. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UploadTest {
  TestGateway kurir;
  Device device;

  @BeforeAll
  void start(@TempDir Path dir) {
    kurir = TestGateway.start(dir, "--media.max-size=64KB");
    device = kurir.newDevice();
  }

  @AfterAll
  void stop() {
    kurir.close();
  }

  /** A multipart body with an optional key field and one file part. */
  private Reply upload(String path, String key, String filename, byte[] content) {
    return upload(kurir, path, key, filename, content);
  }

  private static Reply upload(
      TestGateway kurir, String path, String key, String filename, byte[] content) {
    String boundary = "----kurir" + System.nanoTime();
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    if (key != null) {
      body.writeBytes(
          ("--"
                  + boundary
                  + "\r\nContent-Disposition: form-data; name=\"key\"\r\n\r\n"
                  + key
                  + "\r\n")
              .getBytes(StandardCharsets.UTF_8));
    }
    if (content != null) {
      body.writeBytes(
          ("--"
                  + boundary
                  + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\""
                  + filename
                  + "\"\r\nContent-Type: application/octet-stream\r\n\r\n")
              .getBytes(StandardCharsets.UTF_8));
      body.writeBytes(content);
      body.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
    }
    body.writeBytes(("--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
    return kurir.send(
        HttpRequest.newBuilder(URI.create(kurir.url(path)))
            .header("Content-Type", "multipart/form-data; boundary=" + boundary)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray()))
            .build());
  }

  private Reply sendImage(String to, String filename) {
    return kurir.postJson(
        "/api/send_image",
        "{\"key\":\""
            + device.ecoKey()
            + "\",\"phone_no\":\""
            + to
            + "\",\"filename\":\""
            + filename
            + "\",\"message\":\"caption\"}");
  }

  @Test
  void uploadThenSendByName() {
    assertThat(upload("/api/upload/" + device.ecoKey(), null, "promo.png", TestFiles.PNG).body())
        .isEqualTo("success");
    Reply byField =
        upload("/api/upload", device.ecoKey(), "C:\\fakepath\\photo.jpg", TestFiles.JPEG);
    assertThat(byField.body()).matches("\\d+");

    String to = Numbers.fresh();
    assertThat(sendImage(to, "/media/promo.png").body()).isEqualTo("success");
    assertThat(sendImage(to, "photo.jpg").body()).isEqualTo("success");
    assertThat(kurir.sandbox().inbox(to))
        .extracting(InboxEntry::mediaName)
        .containsExactly("promo.png", "photo.jpg");
    assertThat(kurir.sandbox().inbox(to))
        .extracting(InboxEntry::mediaBytes)
        .containsExactly(200L, 300L);
  }

  @Test
  void aReUploadReplacesTheFileAndKeepsItsId() {
    String first = upload("/api/upload", device.ecoKey(), "banner.png", TestFiles.PNG).body();
    String second =
        upload(
                "/api/upload",
                device.ecoKey(),
                "banner.png",
                TestFiles.bytes(new int[] {0x89, 'P', 'N', 'G'}, 500))
            .body();
    assertThat(second).isEqualTo(first);
    String to = Numbers.fresh();
    sendImage(to, "/media/banner.png");
    assertThat(kurir.sandbox().inbox(to).getFirst().mediaBytes()).isEqualTo(500L);
  }

  @Test
  void refusalsAndMissingFiles() {
    assertThat(sendImage(Numbers.fresh(), "/media/never-uploaded.png").body())
        .isEqualTo("file_not_exists");
    assertThat(sendImage(Numbers.fresh(), "/media/../../etc/passwd").body())
        .isEqualTo("file_not_exists");

    Reply notImage = upload("/api/upload/" + device.ecoKey(), null, "doc.pdf", TestFiles.PDF);
    assertThat(notImage.status()).isEqualTo(415);
    assertThat(notImage.body()).isEqualTo("file_type_not_allowed");
    Reply big =
        upload(
            "/api/upload/" + device.ecoKey(),
            null,
            "big.png",
            TestFiles.bytes(new int[] {0x89, 'P', 'N', 'G'}, 100 * 1024));
    assertThat(big.status()).isEqualTo(413);
    assertThat(big.body()).isEqualTo("file_more_than_64KB");
    Reply noFile = upload("/api/upload/" + device.ecoKey(), null, null, null);
    assertThat(noFile.status()).isEqualTo(400);
    assertThat(noFile.body()).isEqualTo("file_empty");
    Reply badKey = upload("/api/upload/not-a-key", null, "x.png", TestFiles.PNG);
    assertThat(badKey.status()).isEqualTo(401);
    assertThat(badKey.body()).isEqualTo("invalid_key");
    Reply notMultipart = kurir.postJson("/api/upload/" + device.ecoKey(), "{}");
    assertThat(notMultipart.status()).isEqualTo(400);
  }

  @Test
  void namesCannotEscapeTheMediaFolder() {
    assertThat(
            upload(
                    "/api/upload/" + device.ecoKey(),
                    null,
                    "../../../../tmp/evil.png",
                    TestFiles.PNG)
                .body())
        .isEqualTo("success");
    String to = Numbers.fresh();
    assertThat(sendImage(to, "/media/evil.png").body()).isEqualTo("success");
    assertThat(kurir.sandbox().inbox(to).getFirst().mediaName()).isEqualTo("evil.png");
  }

  @Test
  void aNameIsFoundTheWayItWasUploaded() {
    upload("/api/upload/" + device.ecoKey(), null, "photo", TestFiles.PNG);
    upload("/api/upload/" + device.ecoKey(), null, "ab cd.png", TestFiles.PNG);
    String to = Numbers.fresh();
    assertThat(sendImage(to, "/media/photo").body()).isEqualTo("success");
    assertThat(sendImage(to, "/media/ab cd.png").body()).isEqualTo("success");
    assertThat(kurir.sandbox().inbox(to))
        .extracting(InboxEntry::mediaName)
        .containsExactly("photo.png", "ab_cd.png");
  }

  // --- media that nothing refers to any more, and the quota (issue 13)

  private static byte[] png(int size, int variant) {
    byte[] b = TestFiles.bytes(new int[] {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}, size);
    b[size - 1] = (byte) variant; // a different content, so a different kept file
    return b;
  }

  private static Reply sendImage(TestGateway g, Device d, String filename) {
    return g.postJson(
        "/api/send_image",
        "{\"key\":\""
            + d.ecoKey()
            + "\",\"phone_no\":\""
            + Numbers.fresh()
            + "\",\"filename\":\""
            + filename
            + "\"}");
  }

  private static long keptFiles(TestGateway g) throws Exception {
    Path media = g.settings().dataDir().resolve("media");
    try (var walk = java.nio.file.Files.walk(media)) {
      return walk.filter(java.nio.file.Files::isRegularFile).count();
    }
  }

  /**
   * A replaced upload's file goes once its grace period has passed; the new one, and a file a
   * message still refers to, stay.
   */
  @Test
  void aReplacedUploadLeavesNoFileBehindOnceItsGracePassed(@TempDir Path dir) throws Exception {
    var clock = TestGateway.settableClock();
    try (TestGateway g = TestGateway.start(dir, clock, "--media.max-size=64KB")) {
      Device d = g.newDevice();
      assertThat(upload(g, "/api/upload/" + d.ecoKey(), null, "logo.png", png(500, 1)).body())
          .isEqualTo("success");
      // Sent while it was the upload: the message keeps that file.
      assertThat(sendImage(g, d, "logo.png").body()).isEqualTo("success");
      assertThat(upload(g, "/api/upload/" + d.ecoKey(), null, "tmp.png", png(500, 2)).body())
          .isEqualTo("success");
      assertThat(upload(g, "/api/upload/" + d.ecoKey(), null, "tmp.png", png(500, 3)).body())
          .isEqualTo("success");
      assertThat(upload(g, "/api/upload/" + d.ecoKey(), null, "logo.png", png(500, 4)).body())
          .isEqualTo("success");
      assertThat(keptFiles(g)).isEqualTo(4);

      // Within the grace period nothing goes: a file is kept before its row is committed.
      assertThat(g.gateway().mediaSweep().sweepOnce()).isZero();
      clock.advance(java.time.Duration.ofHours(2));
      assertThat(g.gateway().mediaSweep().sweepOnce()).isEqualTo(1); // the first tmp.png
      assertThat(keptFiles(g)).isEqualTo(3);
      // What is left still sends.
      assertThat(sendImage(g, d, "tmp.png").body()).isEqualTo("success");
    }
  }

  /**
   * The file of a message that ended goes once it is older than {@code media.keep-for}; the file of
   * a message still waiting stays, however old.
   */
  @Test
  void theFileOfAMessageThatEndedGoesAfterTheKeepingTimeWhileAWaitingOnesStays(@TempDir Path dir)
      throws Exception {
    var clock = TestGateway.settableClock();
    try (TestGateway g =
        TestGateway.start(dir, clock, "--media.max-size=64KB", "--media.keep-for=30d")) {
      Device online = g.newDevice();
      Device away = g.newDevice("+6281100004243", false);
      String onlinePath = "/api/upload/" + online.ecoKey();
      String awayPath = "/api/upload/" + away.ecoKey();
      assertThat(upload(g, onlinePath, null, "a.png", png(500, 1)).body()).isEqualTo("success");
      assertThat(sendImage(g, online, "a.png").body()).isEqualTo("success");
      assertThat(upload(g, awayPath, null, "b.png", png(500, 2)).body()).isEqualTo("success");
      Reply waiting =
          g.postJson(
              "/api/send_image",
              "{\"key\":\""
                  + away.ecoKey()
                  + "\",\"phone_no\":\""
                  + Numbers.fresh()
                  + "\",\"filename\":\"b.png\",\"flag_retry\":\"on\"}");
      assertThat(waiting.body()).isEqualTo("phone_offline"); // told, and it stays queued
      // Both names now hold other files: each first file is the message's alone.
      assertThat(upload(g, onlinePath, null, "a.png", png(500, 3)).body()).isEqualTo("success");
      assertThat(upload(g, awayPath, null, "b.png", png(500, 4)).body()).isEqualTo("success");
      assertThat(keptFiles(g)).isEqualTo(4);

      // Its last change (the read receipt) is where the keeping time counts from.
      clock.advance(java.time.Duration.ofSeconds(5));
      TestTables tables = TestTables.of(g);
      java.util.function.Supplier<java.util.Optional<Long>> lastRead =
          () ->
              tables.messagesOf(online.id()).stream()
                  .filter(m -> m.state().equals("read"))
                  .flatMap(m -> m.statusAt().stream())
                  .max(Long::compare);
      io.kurir.testing.Eventually.until("read", () -> lastRead.get().isPresent());
      java.time.Instant sent = java.time.Instant.ofEpochMilli(lastRead.get().orElseThrow());
      clock.set(sent.plus(java.time.Duration.ofDays(29)));
      assertThat(g.gateway().mediaSweep().sweepOnce()).as("within the keeping time").isZero();
      clock.set(sent.plus(java.time.Duration.ofDays(31)));
      assertThat(g.gateway().mediaSweep().sweepOnce()).as("the sent message's file").isEqualTo(1);
      assertThat(keptFiles(g)).isEqualTo(3);
    }
  }

  /** A license's uploads share one quota; replacing a name counts the new size only. */
  @Test
  void uploadsPastTheLicensesQuotaAreRefusedInTheApisStyle(@TempDir Path dir) {
    try (TestGateway g =
        TestGateway.start(dir, "--media.max-size=64KB", "--media.upload-quota=100KB")) {
      Device d = g.newDevice();
      String path = "/api/upload/" + d.ecoKey();
      assertThat(upload(g, path, null, "a.png", png(60 * 1024, 1)).body()).isEqualTo("success");
      Reply over = upload(g, path, null, "b.png", png(60 * 1024, 2));
      assertThat(over.status()).isEqualTo(413);
      assertThat(over.body()).isEqualTo("storage_quota_exceeded");
      assertThat(upload(g, path, null, "a.png", png(60 * 1024, 3)).body()).isEqualTo("success");
      assertThat(upload(g, path, null, "c.png", png(30 * 1024, 4)).body()).isEqualTo("success");
    }
  }
}
