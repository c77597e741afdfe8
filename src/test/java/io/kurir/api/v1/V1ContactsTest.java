package io.kurir.api.v1;

import static io.kurir.testing.V1Client.assertError;
import static io.kurir.testing.V1Client.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import io.kurir.tenant.ApiScope;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.testing.V1Client;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contact book through Kurir API v1 on a real gateway: a spreadsheet's CSV imported (its
 * preview first, bad rows refused with their row numbers, duplicates merged), the book read by tag
 * a page at a time, exported and imported again unchanged, one contact added and changed, opt-out
 * by a reply of STOP kept through a later import, scopes and tenancy.
 */
class V1ContactsTest {

  @TempDir Path dir;
  TestGateway kurir;
  V1Client api;

  @BeforeEach
  void start() {
    kurir = TestGateway.start(dir);
    api = new V1Client(kurir);
  }

  @AfterEach
  void stop() {
    kurir.close();
  }

  @Test
  void aSpreadsheetsCsvIsPreviewedThenImported() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device, ApiScope.CONTACTS);
    String siti = Numbers.fresh();
    String budi = Numbers.fresh();
    // As a spreadsheet with Indonesian settings exports it: semicolons, a byte order mark, CRLF,
    // numbers written nationally, a quoted field with the delimiter and a line break in it.
    String csv =
        "\uFEFFNama;Nomor HP;Tags;Kelas;Wali Kelas\r\n"
            + "Siti;"
            + Numbers.national(siti)
            + ";parents;7A;\"Bu Rina; guru\nmatematika\"\r\n"
            + "Budi;"
            + budi
            + ";\"parents,vip\";7B;Pak Joko\r\n"
            + "Nobody;12;parents;7C;x\r\n"
            + ";;;;\r\n"
            + "No number;;parents;7C;x\r\n"
            + "Siti A.;"
            + siti
            + ";alumni;;\r\n";

    JsonNode preview = json(post(key, "/v1/contacts/import?preview=true", csv, "text/csv"), 200);
    assertThat(preview.get("saved").asBoolean()).isFalse();
    assertThat(preview.get("imported").asInt()).isEqualTo(2);
    assertThat(preview.get("updated").asInt()).isZero();
    assertThat(preview.get("merged").asInt()).isEqualTo(1);
    assertThat(preview.get("rows").asInt()).isEqualTo(5);
    // Rows as the spreadsheet numbers them: the header is 1, a cell's line break starts no row.
    assertThat(preview.get("refused").findValuesAsText("row")).containsExactly("4", "6");
    assertThat(preview.get("refused").get(0).get("reason").asText()).contains("'12'");
    assertThat(preview.get("refused").get(1).get("reason").asText()).isEqualTo("no phone number");
    assertThat(json(get(key, "/v1/contacts"), 200).get("data")).isEmpty();

    JsonNode done = json(post(key, "/v1/contacts/import", csv, "text/csv"), 200);
    assertThat(done.get("saved").asBoolean()).isTrue();
    assertThat(done.get("imported").asInt()).isEqualTo(2);

    JsonNode s = json(get(key, "/v1/contacts/" + siti), 200);
    assertThat(s.get("name").asText()).isEqualTo("Siti A.");
    assertThat(texts(s.get("tags"))).containsExactly("alumni", "parents");
    assertThat(s.get("attributes").get("kelas").asText()).isEqualTo("7A");
    assertThat(s.get("attributes").get("wali_kelas").asText())
        .isEqualTo("Bu Rina; guru\nmatematika");
    assertThat(s.get("unsubscribed").asBoolean()).isFalse();

    // The same file again: nothing new, the two contacts updated, nothing taken away.
    JsonNode again = json(post(key, "/v1/contacts/import", csv, "text/csv"), 200);
    assertThat(again.get("imported").asInt()).isZero();
    assertThat(again.get("updated").asInt()).isEqualTo(2);
    assertThat(json(get(key, "/v1/contacts"), 200).get("data")).hasSize(2);
  }

  @Test
  void theBookIsReadByTagPageByPageAndExportedToImportAgain() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device, ApiScope.CONTACTS);
    StringBuilder csv = new StringBuilder("phone,name,tags,city\n");
    List<String> numbers = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      String n = Numbers.fresh();
      numbers.add(n);
      csv.append(n)
          .append(",Customer ")
          .append(i)
          .append(",")
          .append(i % 2 == 0 ? "even" : "odd")
          .append(",")
          .append(i == 0 ? "=HYPERLINK(\"x\")" : "Bandung")
          .append("\n");
    }
    json(post(key, "/v1/contacts/import", csv.toString(), "text/csv"), 200);

    List<String> even = new ArrayList<>();
    String path = "/v1/contacts?tag=EVEN&limit=3";
    while (true) {
      JsonNode page = json(get(key, path), 200);
      page.get("data").forEach(c -> even.add(c.get("phone").asText()));
      if (!page.has("next_cursor")) {
        break;
      }
      path = "/v1/contacts?tag=even&limit=3&cursor=" + page.get("next_cursor").asText();
    }
    assertThat(even)
        .containsExactly(numbers.get(0), numbers.get(2), numbers.get(4), numbers.get(6));
    JsonNode tags = json(get(key, "/v1/contacts/tags"), 200).get("data");
    assertThat(tags.findValuesAsText("tag")).containsExactly("even", "odd");
    assertThat(tags.get(0).get("contacts").asInt()).isEqualTo(4);

    json(patch(key, "/v1/contacts/" + numbers.get(1), "{\"unsubscribed\":true}"), 200);

    Reply exported = get(key, "/v1/contacts/export");
    assertThat(exported.status()).isEqualTo(200);
    assertThat(exported.contentType()).startsWith("text/csv");
    String[] lines = exported.body().split("\r\n");
    assertThat(lines[0]).isEqualTo("phone,name,tags,unsubscribed,city");
    assertThat(lines).hasSize(8);
    // A value a spreadsheet would run as a formula is written so that it is only text.
    assertThat(exported.body()).contains("\"'=HYPERLINK(\"\"x\"\")\"");

    // The export is a valid import: into another license's book, the same contacts.
    Device other = kurir.newDevice(Numbers.fresh(), true);
    String otherKey = key(other, ApiScope.CONTACTS);
    JsonNode imported =
        json(post(otherKey, "/v1/contacts/import", exported.body(), "text/csv"), 200);
    assertThat(imported.get("imported").asInt()).isEqualTo(7);
    assertThat(imported.get("refused")).isEmpty();
    JsonNode third = json(get(otherKey, "/v1/contacts/" + numbers.get(3)), 200);
    assertThat(third.get("name").asText()).isEqualTo("Customer 3");
    assertThat(third.get("unsubscribed").asBoolean()).isFalse();
    assertThat(third.get("attributes").has("unsubscribed"))
        .as("the export's column is not an attribute")
        .isFalse();
    // The opt-out travels with the export.
    assertThat(json(get(otherKey, "/v1/contacts/" + numbers.get(1)), 200).get("unsubscribed"))
        .isEqualTo(BooleanNode.TRUE);
    // Imported again into the first book, where it is unsubscribed already: it stays so.
    json(post(key, "/v1/contacts/import", exported.body(), "text/csv"), 200);
    assertThat(json(get(key, "/v1/contacts/" + numbers.get(1)), 200).get("unsubscribed"))
        .isEqualTo(BooleanNode.TRUE);
  }

  @Test
  void aReplyOfStopUnsubscribesAndAnImportDoesNotSubscribeAgain() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device, ApiScope.CONTACTS);
    String ani = Numbers.fresh();
    String dewi = Numbers.fresh();
    String stranger = Numbers.fresh();
    json(
        post(
            key,
            "/v1/contacts/import",
            "phone,name\n" + ani + ",Ani\n" + dewi + ",Dewi\n",
            "text/csv"),
        200);

    kurir.sandbox().injectIncoming(device.id(), ani, " Stop! ");
    kurir.sandbox().injectIncoming(device.id(), dewi, "jangan berhenti kirim promo");
    kurir.sandbox().injectIncoming(device.id(), stranger, "BERHENTI");
    Eventually.until("three messages stored", () -> kurir.storedIncoming(device.id()) == 3);

    JsonNode a = json(get(key, "/v1/contacts/" + ani), 200);
    assertThat(a.get("unsubscribed").asBoolean()).isTrue();
    assertThat(a.get("unsubscribed_by").asText()).isEqualTo("reply:STOP");
    assertThat(json(get(key, "/v1/contacts/" + dewi), 200).get("unsubscribed").asBoolean())
        .isFalse();
    // Someone not in the book is added as unsubscribed, so that a later import keeps them out.
    assertThat(json(get(key, "/v1/contacts/" + stranger), 200).get("unsubscribed_by").asText())
        .isEqualTo("reply:BERHENTI");
    json(
        post(
            key,
            "/v1/contacts/import",
            "phone,name\n" + ani + ",Ani\n" + stranger + ",Tono\n",
            "text/csv"),
        200);
    assertThat(
            json(get(key, "/v1/contacts?unsubscribed=true"), 200)
                .get("data")
                .findValuesAsText("phone"))
        .containsExactlyInAnyOrder(ani, stranger);

    // Deleted, an unsubscribed contact keeps its opt-out: its name goes, its phone stays out.
    assertThat(delete(key, "/v1/contacts/" + stranger).status()).isEqualTo(204);
    JsonNode deleted = json(get(key, "/v1/contacts/" + stranger), 200);
    assertThat(deleted.get("unsubscribed").asBoolean()).isTrue();
    assertThat(deleted.get("name").isNull()).isTrue();

    // The integrator may subscribe someone again who asked for it.
    JsonNode back = json(patch(key, "/v1/contacts/" + ani, "{\"unsubscribed\":false}"), 200);
    assertThat(back.get("unsubscribed").asBoolean()).isFalse();
  }

  @Test
  void oneContactAddedChangedAndRemoved() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device, ApiScope.CONTACTS);
    String n = Numbers.fresh();
    JsonNode made =
        json(
            post(
                key,
                "/v1/contacts",
                "{\"phone\":\""
                    + Numbers.national(n)
                    + "\",\"name\":\"Rina\",\"tags\":[\"VIP\"],\"attributes\":{\"Kota\":\"Solo\"}}",
                "application/json"),
            201);
    assertThat(made.get("phone").asText()).isEqualTo(n);
    assertThat(texts(made.get("tags"))).containsExactly("vip");
    assertThat(made.get("attributes").get("kota").asText()).isEqualTo("Solo");
    JsonNode changed = json(patch(key, "/v1/contacts/" + n, "{\"tags\":[\"a\",\"b\"]}"), 200);
    assertThat(texts(changed.get("tags"))).containsExactly("a", "b");
    assertThat(changed.get("name").asText()).isEqualTo("Rina");
    assertThat(
            json(
                    post(
                        key,
                        "/v1/contacts",
                        "{\"phone\":\"" + n + "\",\"name\":\"Rina S\"}",
                        "application/json"),
                    200)
                .get("name")
                .asText())
        .isEqualTo("Rina S");

    // The phone keys the contact: a PATCH says it cannot change it, not that contacts have none.
    Reply renumbered = patch(key, "/v1/contacts/" + n, "{\"phone\":\"" + Numbers.fresh() + "\"}");
    assertError(renumbered, 400, "unknown_field");
    assertThat(json(renumbered, 400).get("message").asText())
        .contains("cannot be changed")
        .contains("delete");
    assertThat(json(renumbered, 400).get("field").asText()).isEqualTo("phone");
    assertError(patch(key, "/v1/contacts/" + n, "{\"tags\":\"vip\"}"), 400, "invalid_tags");
    assertError(
        post(key, "/v1/contacts", "{\"phone\":\"12\"}", "application/json"), 400, "invalid_phone");
    assertError(
        post(
            key,
            "/v1/contacts",
            "{\"phone\":\"" + n + "\",\"attributes\":{\"a b!\":\"x\"}}",
            "application/json"),
        400,
        "invalid_contact");
    assertThat(delete(key, "/v1/contacts/" + n).status()).isEqualTo(204);
    assertError(get(key, "/v1/contacts/" + n), 404, "contact_not_found");
    assertError(delete(key, "/v1/contacts/" + n), 404, "contact_not_found");
  }

  @Test
  void badCsvAndKeysAreRefusedInTheApisStyle() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device, ApiScope.CONTACTS);
    assertError(post(key, "/v1/contacts/import", "", "text/csv"), 400, "invalid_csv");
    assertError(
        post(key, "/v1/contacts/import", "name,city\nAni,Solo\n", "text/csv"), 400, "invalid_csv");
    assertError(
        post(key, "/v1/contacts/import", "phone,name\n\"0812,Ani\n", "text/csv"),
        400,
        "invalid_csv");
    assertError(
        post(key, "/v1/contacts/import", "phone,city,City\n0812,a,b\n", "text/csv"),
        400,
        "invalid_csv");
    // A file sent as a form upload (curl -F file=@contacts.csv) is refused for what it is, not
    // read as a CSV whose first line is the form's boundary ("no phone column").
    String form =
        "--b0undary\r\n"
            + "Content-Disposition: form-data; name=\"file\"; filename=\"contacts.csv\"\r\n"
            + "Content-Type: text/csv\r\n\r\n"
            + "phone,name\r\n0812,Ani\r\n"
            + "--b0undary--\r\n";
    Reply upload = post(key, "/v1/contacts/import", form, "multipart/form-data; boundary=b0undary");
    assertError(upload, 415, "body_not_csv");
    assertThat(json(upload, 415).get("message").asText()).contains("text/csv");
    assertError(get(key, "/v1/contacts?cursor=abc"), 400, "invalid_cursor");
    assertError(get(key, "/v1/contacts?limit=0"), 400, "invalid_limit");

    // Another scope, a device's key, another license.
    String reader = key(device, ApiScope.READ, ApiScope.SEND);
    assertError(get(reader, "/v1/contacts"), 403, "missing_scope");
    assertError(get(device.ecoKey(), "/v1/contacts"), 403, "license_key_required");
    String n = Numbers.fresh();
    json(post(key, "/v1/contacts", "{\"phone\":\"" + n + "\"}", "application/json"), 201);
    Device theirs = kurir.newDevice(Numbers.fresh(), true);
    String other = key(theirs, ApiScope.CONTACTS);
    assertError(get(other, "/v1/contacts/" + n), 404, "contact_not_found");
    assertThat(json(get(other, "/v1/contacts"), 200).get("data")).isEmpty();
    assertThat(get(other, "/v1/contacts/export").body()).doesNotContain(n);
  }

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(v -> out.add(v.asText()));
    return out;
  }

  private String key(Device device, ApiScope... scopes) {
    return api.key(device, scopes);
  }

  /** A POST with the body's own type (a CSV, or JSON). */
  private Reply post(String key, String path, String body, String type) {
    return kurir.post(path, body, type, "Authorization", "Bearer " + key);
  }

  private Reply get(String key, String path) {
    return api.get(key, path);
  }

  private Reply patch(String key, String path, String body) {
    return api.patch(key, path, body);
  }

  private Reply delete(String key, String path) {
    return api.delete(key, path);
  }
}
