package io.kurir.api.account;

import static io.kurir.testing.TestFiles.PNG;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.kurir.device.DeviceState;
import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.Partner;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /v2.0/send-message} as the public clients call it (issue 25, item 3): every field
 * they send is read ({@code domain}, {@code gambar}, {@code file}, {@code caption}), in each shape
 * they send it (a C# hand-built form, a WordPress plugin's multipart array, a query string, JSON),
 * and a license with several devices sends through its primary device when no {@code no_wa} is
 * given: none of these clients sends one.
 */
class LegacyClientShapesTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path dir;
  static TestGateway kurir;
  static HttpServer files;
  static String base;

  /** A license of one paired device, as most customers have. */
  static Device single;

  static String singleLicense;

  @BeforeAll
  static void start() throws Exception {
    files = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    files.createContext(
        "/logo.png",
        exchange -> {
          exchange.getResponseHeaders().add("Content-Type", "image/png");
          exchange.sendResponseHeaders(200, PNG.length);
          exchange.getResponseBody().write(PNG);
          exchange.close();
        });
    files.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    files.start();
    base = "http://127.0.0.1:" + files.getAddress().getPort();
    // The file server is on loopback.
    kurir = TestGateway.start(dir, "--media.allow-private-addresses=true");
    single = kurir.newDevice("+6281100008401", true);
    singleLicense = kurir.licenseOf(single).code();
  }

  @AfterAll
  static void stop() {
    kurir.close();
    files.stop(0);
  }

  private static JsonNode json(Reply r) throws Exception {
    assertThat(r.contentType()).as(r.body()).startsWith("application/json");
    return JSON.readTree(r.body());
  }

  private static List<InboxEntry> inbox(String e164) {
    return kurir.sandbox().inbox(e164);
  }

  private static String texts(String e164) {
    return String.join("|", inbox(e164).stream().map(InboxEntry::text).toList());
  }

  /** A license with devices of these numbers, created in this order; {@code paired} says which. */
  private static License licenseWith(String[] numbers, boolean[] paired) {
    Partner p = kurir.gateway().tenants().createPartner("Partner " + numbers[0], "p@example.com");
    License l =
        kurir
            .gateway()
            .tenants()
            .createLicense(p.id(), "Several " + numbers[0], "", null, List.of());
    for (int i = 0; i < numbers.length; i++) {
      Device d = kurir.gateway().tenants().createDevice(l.id(), numbers[i], "sandbox");
      if (paired[i]) {
        pairAndWaitUntilRecorded(d);
      }
    }
    return l;
  }

  /** Pairs {@code d}; the primary device rule reads the recorded state, written after the event. */
  private static void pairAndWaitUntilRecorded(Device d) {
    kurir.sandbox().pair(d.id(), d.number());
    Eventually.until(
        "recorded online",
        () -> kurir.gateway().deviceStates().current(d.id()) == DeviceState.ONLINE);
  }

  @Test
  void theCSharpFormWithLicenseThenDomainIsReadFieldByField() throws Exception {
    String to = Numbers.fresh();
    // WebRequest with a hand-concatenated postData: nothing escaped, domain after the license.
    String body =
        "license="
            + singleLicense
            + "&domain=basic.example.com&wa_number="
            + to.substring(1)
            + "&text=Pesanan #12 & ongkir: dikirim";

    Reply r = kurir.postForm("/v2.0/send-message", body);

    assertThat(r.status()).as(r.body()).isEqualTo(200);
    assertThat(json(r).isObject()).isTrue();
    assertThat(r.body())
        .matches("\\{\"status\":\"success\",\"message\":\"queued\",\"msg_id\":\"\\d+\"}");
    Eventually.until("delivered", () -> texts(to).equals("Pesanan #12 & ongkir: dikirim"));
  }

  @Test
  void theCSharpFormWithDomainFirstAndAPictureSendsTheImageWithTheTextAsCaption() throws Exception {
    String to = Numbers.fresh();
    String body =
        "domain=basic.example.com&license="
            + singleLicense
            + "&wa_number="
            + to.substring(1)
            + "&text=Resi & foto paket"
            + "&gambar="
            + base
            + "/logo.png";

    Reply r = kurir.postForm("/v2.0/send-message", body);

    assertThat(json(r).get("message").asText()).as(r.body()).isEqualTo("queued");
    Eventually.until("delivered", () -> inbox(to).size() == 1);
    assertThat(inbox(to).getFirst().kind()).isEqualTo("image");
    assertThat(inbox(to).getFirst().text()).isEqualTo("Resi & foto paket");
  }

  @Test
  void theWordPressPluginsMultipartArrayWithDomainIsRead() throws Exception {
    String to = Numbers.fresh();
    // PHP curl with CURLOPT_POSTFIELDS set to an array sends multipart/form-data.
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put("domain", "toko.example.com");
    fields.put("license", singleLicense);
    fields.put("wa_number", to.substring(1));
    fields.put("text", "Pesanan diterima");

    JsonNode r = json(kurir.postMultipart("/v2.0/send-message", fields));

    assertThat(r.get("message").asText()).isEqualTo("queued");
    Eventually.until("delivered", () -> texts(to).equals("Pesanan diterima"));
  }

  @Test
  void thePhpSampleWithCaptionFileAndSyncModeSendsTheFileWithBoth() throws Exception {
    String to = Numbers.fresh();
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put("domain", "member.example.com");
    fields.put("license", singleLicense);
    fields.put("wa_number", to.substring(1));
    fields.put("file", base + "/logo.png");
    fields.put("caption", "this is caption");
    fields.put("text", "Paket dikirim");
    fields.put("mode", "sync");

    JsonNode r = json(kurir.postMultipart("/v2.0/send-message", fields));

    assertThat(r.get("status").asText()).isEqualTo("success");
    assertThat(r.get("message").asText()).isEqualTo("sent");
    assertThat(inbox(to)).hasSize(1);
    assertThat(inbox(to).getFirst().text()).isEqualTo("this is caption\nPaket dikirim");
  }

  @Test
  void aQueryStringSendAndAJsonSendWithDomainWork() throws Exception {
    String to = Numbers.fresh();
    String query =
        "license="
            + singleLicense
            + "&domain=example.com&wa_number="
            + to.substring(1)
            + "&text="
            + URLEncoder.encode("lewat query", StandardCharsets.UTF_8);
    Reply viaQuery =
        kurir.send(
            HttpRequest.newBuilder(URI.create(kurir.url("/v2.0/send-message?" + query)))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build());
    assertThat(viaQuery.status()).as(viaQuery.body()).isEqualTo(200);
    assertThat(json(viaQuery).get("message").asText()).isEqualTo("queued");

    Reply viaJson =
        kurir.postJson(
            "/v2.0/send-message",
            "{\"license\":\""
                + singleLicense
                + "\",\"domain\":\"example.com\",\"wa_number\":\""
                + to
                + "\",\"text\":\"lewat JSON\",\"mode\":\"sync\"}");
    assertThat(json(viaJson).get("message").asText()).isEqualTo("sent");
    // In either order: a sync send goes ahead of async ones still queued for the device.
    Eventually.until(
        "both delivered",
        () ->
            java.util.Set.of(texts(to).split("\\|"))
                .equals(java.util.Set.of("lewat query", "lewat JSON")));
  }

  @Test
  void aPictureKurirMayNotFetchIsRefusedInTheAccountApiStyle() throws Exception {
    Reply r =
        kurir.postForm(
            "/v2.0/send-message",
            "license="
                + singleLicense
                + "&wa_number="
                + Numbers.fresh()
                + "&text=x&gambar=ftp://example.com/a.png");

    assertThat(r.status()).isEqualTo(400);
    assertThat(json(r).get("status").asText()).isEqualTo("failed");
    assertThat(json(r).get("message").asText()).isEqualTo("gambar_not_valid");
  }

  @Test
  void withSeveralDevicesTheFirstCreatedLinkedOneSendsWhenNoWaIsNotGiven() throws Exception {
    // The first created is not linked; the second and third are: the second sends.
    License l =
        licenseWith(
            new String[] {"+6281100008411", "+6281100008412", "+6281100008413"},
            new boolean[] {false, true, true});
    String to = Numbers.fresh();

    JsonNode r =
        json(
            kurir.postForm(
                "/v2.0/send-message",
                "license=" + l.code() + "&wa_number=" + to + "&text=dari utama&mode=sync"));

    assertThat(r.get("status").asText()).isEqualTo("success");
    assertThat(r.get("message").asText()).isEqualTo("sent");
    assertThat(inbox(to)).extracting(InboxEntry::from).containsExactly("+6281100008412");

    // no_wa still names the sender.
    JsonNode named =
        json(
            kurir.postForm(
                "/v2.0/send-message",
                "license="
                    + l.code()
                    + "&no_wa=081100008413&wa_number="
                    + to
                    + "&text=dari tiga&mode=sync"));
    assertThat(named.get("message").asText()).isEqualTo("sent");
    assertThat(inbox(to))
        .extracting(InboxEntry::from)
        .containsExactly("+6281100008412", "+6281100008413");
  }

  @Test
  void aLinkedDeviceWhosePhoneIsUnreachableStaysPrimary() throws Exception {
    License l =
        licenseWith(new String[] {"+6281100008441", "+6281100008442"}, new boolean[] {true, true});
    Device first = kurir.gateway().tenants().devicesOf(l).getFirst();
    // Offline is still linked: the message waits for that phone rather than changing sender.
    kurir.gateway().deviceStates().record(first.id(), DeviceState.OFFLINE, "phone unreachable");
    String to = Numbers.fresh();

    JsonNode r =
        json(
            kurir.postForm(
                "/v2.0/send-message",
                "license=" + l.code() + "&wa_number=" + to + "&text=x&mode=sync"));

    assertThat(r.get("message").asText()).isEqualTo("sent");
    assertThat(inbox(to)).extracting(InboxEntry::from).containsExactly("+6281100008441");
  }

  @Test
  void aSwitchedOffDeviceIsNeverPrimary() throws Exception {
    License l =
        licenseWith(new String[] {"+6281100008421", "+6281100008422"}, new boolean[] {true, true});
    Device first = kurir.gateway().tenants().devicesOf(l).getFirst();
    kurir.gateway().tenants().setDeviceDisabled(first.id(), true);
    String to = Numbers.fresh();

    JsonNode r =
        json(
            kurir.postForm(
                "/v2.0/send-message",
                "license=" + l.code() + "&wa_number=" + to + "&text=x&mode=sync"));

    assertThat(r.get("message").asText()).isEqualTo("sent");
    assertThat(inbox(to)).extracting(InboxEntry::from).containsExactly("+6281100008422");
  }

  @Test
  void withNoLinkedDeviceTheFirstCreatedOneQueuesTheMessage() throws Exception {
    License l =
        licenseWith(
            new String[] {"+6281100008431", "+6281100008432"}, new boolean[] {false, false});
    Device first = kurir.gateway().tenants().devicesOf(l).getFirst();
    String to = Numbers.fresh();

    JsonNode r =
        json(
            kurir.postForm(
                "/v2.0/send-message", "license=" + l.code() + "&wa_number=" + to + "&text=nanti"));

    assertThat(r.get("status").asText()).isEqualTo("success");
    assertThat(r.get("message").asText()).isEqualTo("queued");
    long id = Long.parseLong(r.get("msg_id").asText());
    var stored = kurir.gateway().messages().find(first, id);
    assertThat(stored).as("stored in the first created device's queue").isPresent();
    assertThat(stored.get().state()).isEqualTo(MessageState.PENDING);

    // Once it is linked, the message waiting in its queue goes out from it.
    kurir.sandbox().pair(first.id(), first.number());
    Eventually.until("delivered once linked", () -> texts(to).equals("nanti"));
    assertThat(inbox(to)).extracting(InboxEntry::from).containsExactly("+6281100008431");
  }
}
