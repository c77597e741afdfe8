package io.kurir.api.v1;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.contactbook.BookContact;
import io.kurir.contactbook.ContactBook;
import io.kurir.contactbook.ImportReport;
import io.kurir.tenant.ApiCaller;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * {@code /v1/contacts}: a license's contact book ({@link ContactBook}) — CSV import (with a
 * preview), export, a page of contacts by tag, one contact read, added, changed, unsubscribed or
 * removed. The book belongs to the license: a device's Eco key, which reaches one device, cannot
 * read or change it.
 */
final class V1ContactHandlers {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int DEFAULT_PAGE = 50;
  private static final int MAX_PAGE = 500;

  private final ContactBook book;

  V1ContactHandlers(ContactBook book) {
    this.book = book;
  }

  /**
   * The CSV body imported: {@code {rows, imported, updated, merged, refused: [{row, reason}],
   * saved}}; {@code ?preview=true} says the same and changes nothing.
   */
  void importCsv(Context ctx) {
    long license = licenseOf(ctx);
    boolean preview = bool(ctx, "preview");
    ImportReport report = book.importCsv(license, csvBody(ctx), preview);
    ctx.json(view(report));
  }

  /** {@code {data: [contact], next_cursor?}}, by phone; {@code tag}, {@code unsubscribed}. */
  void list(Context ctx) {
    long license = licenseOf(ctx);
    int limit = limit(ctx);
    Optional<Boolean> unsubscribed = query(ctx, "unsubscribed").map(v -> bool("unsubscribed", v));
    List<BookContact> page =
        book.page(
            license,
            query(ctx, "tag"),
            unsubscribed,
            query(ctx, "cursor").map(V1ContactHandlers::afterPhone),
            limit + 1);
    Map<String, Object> reply = new LinkedHashMap<>();
    List<Map<String, Object>> data = new ArrayList<>();
    page.stream().limit(limit).forEach(c -> data.add(view(c)));
    reply.put("data", data);
    if (page.size() > limit) {
      reply.put("next_cursor", cursorOf(page.get(limit - 1).phone()));
    }
    ctx.json(reply);
  }

  /** The book (or the contacts with {@code tag}) as CSV, to open in a spreadsheet. */
  void export(Context ctx) {
    long license = licenseOf(ctx);
    Optional<String> tag = query(ctx, "tag");
    ctx.contentType("text/csv; charset=utf-8");
    ctx.header("Content-Disposition", "attachment; filename=\"contacts.csv\"");
    // Written as it is read, a page of contacts at a time: a large book is never held whole.
    try (Writer out = new OutputStreamWriter(ctx.outputStream(), StandardCharsets.UTF_8)) {
      book.exportCsv(
          license,
          tag,
          line -> {
            try {
              out.write(line);
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code {data: [{tag, contacts}]}}: the license's tags and how many contacts have each. */
  void tags(Context ctx) {
    long license = licenseOf(ctx);
    List<Map<String, Object>> data = new ArrayList<>();
    book.tags(license)
        .forEach(
            (tag, n) -> {
              Map<String, Object> t = new LinkedHashMap<>();
              t.put("tag", tag);
              t.put("contacts", n);
              data.add(t);
            });
    ctx.json(Map.of("data", data));
  }

  /**
   * {@code {phone, name?, tags?, attributes?}}: adds the contact (201) or updates the one the book
   * has for that number (200).
   */
  void put(Context ctx) {
    long license = licenseOf(ctx);
    JsonNode body = object(ctx, "{phone, name, tags, attributes}");
    JsonNode phone = body.path("phone");
    if (!phone.isTextual() || phone.asText().isBlank()) {
      throw ApiException.badRequest("invalid_phone", "phone is the contact's number, e.g. 0812…");
    }
    boolean existed = existing(license, phone.asText());
    BookContact c = change(license, phone.asText(), body, false);
    ctx.status(existed ? 200 : 201).json(view(c));
  }

  void one(Context ctx) {
    ctx.json(view(book.get(licenseOf(ctx), ctx.pathParam("phone"))));
  }

  /** {@code {name?, tags?, attributes?, unsubscribed?}}: changes what is given. */
  void patch(Context ctx) {
    long license = licenseOf(ctx);
    String phone = ctx.pathParam("phone");
    book.get(license, phone); // 404 for a number the book does not have
    ctx.json(
        view(change(license, phone, object(ctx, "{name, tags, attributes, unsubscribed}"), true)));
  }

  void remove(Context ctx) {
    book.delete(licenseOf(ctx), ctx.pathParam("phone"));
    ctx.status(204);
  }

  private boolean existing(long license, String phone) {
    try {
      book.get(license, phone);
      return true;
    } catch (io.kurir.contactbook.ContactRefused e) {
      if (e.reason() == io.kurir.contactbook.ContactRefused.Reason.NOT_FOUND) {
        return false;
      }
      throw e;
    }
  }

  private BookContact change(long license, String phone, JsonNode body, boolean patch) {
    for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (patch && name.equals("phone")) {
        // The phone is in the path and keys the contact (and its opt-out): a new number is
        // another contact, not this one changed.
        throw ApiException.unknownField(
            name,
            "the phone is the contact's key and cannot be changed: delete the contact and create"
                + " it with the new phone (POST /v1/contacts)");
      }
      if (!List.of("phone", "name", "tags", "attributes", "unsubscribed").contains(name)) {
        throw ApiException.unknownField(
            name,
            "a contact has name, tags, attributes and unsubscribed" + (patch ? "" : ", phone"));
      }
    }
    Optional<String> name = text(body, "name");
    Optional<List<String>> tags = Optional.empty();
    if (body.has("tags")) {
      if (!body.get("tags").isArray()) {
        throw ApiException.badRequest("invalid_tags", "tags is a list of words, e.g. [\"vip\"]");
      }
      List<String> t = new ArrayList<>();
      for (JsonNode tag : body.get("tags")) {
        if (!tag.isTextual()) {
          throw ApiException.badRequest("invalid_tags", "each of tags is a word");
        }
        t.add(tag.asText());
      }
      tags = Optional.of(t);
    }
    Optional<Map<String, String>> attributes = Optional.empty();
    if (body.has("attributes")) {
      if (!body.get("attributes").isObject()) {
        throw ApiException.badRequest(
            "invalid_attributes", "attributes is an object of texts, e.g. {\"kelas\": \"7A\"}");
      }
      Map<String, String> a = new LinkedHashMap<>();
      for (var e : body.get("attributes").properties()) {
        if (!e.getValue().isTextual() && !e.getValue().isNumber()) {
          throw ApiException.badRequest(
              "invalid_attributes", "attribute " + e.getKey() + " is a text or a number");
        }
        a.put(e.getKey(), e.getValue().asText());
      }
      attributes = Optional.of(a);
    }
    BookContact c = book.put(license, phone, name, attributes, tags);
    if (body.has("unsubscribed")) {
      if (!body.get("unsubscribed").isBoolean()) {
        throw ApiException.badRequest("invalid_unsubscribed", "unsubscribed is true or false");
      }
      c = book.setUnsubscribed(license, phone, body.get("unsubscribed").asBoolean(), "api");
    }
    return c;
  }

  private static Optional<String> text(JsonNode body, String field) {
    if (!body.has(field) || body.get(field).isNull()) {
      return Optional.empty();
    }
    if (!body.get(field).isTextual()) {
      throw ApiException.badRequest("invalid_" + field, field + " is a text");
    }
    return Optional.of(body.get(field).asText());
  }

  /**
   * The body as the CSV it must be. A form upload ({@code multipart/form-data}, as a browser's or
   * {@code curl -F} sends a file) wraps the file in boundaries and part headers: read as CSV, its
   * first line is a boundary and the refusal says "no phone column", which misleads. It is refused
   * for what it is: 415 {@code body_not_csv}.
   */
  static String csvBody(Context ctx) {
    String type = ctx.contentType();
    if (type != null && type.trim().toLowerCase(Locale.ROOT).startsWith("multipart/")) {
      throw new ApiException(
          415,
          "body_not_csv",
          "the body is the CSV file itself (Content-Type: text/csv, e.g. curl --data-binary"
              + " @contacts.csv), not a form upload ("
              + type.split(";", 2)[0].trim()
              + ")");
    }
    return io.kurir.api.RequestBody.text(ctx);
  }

  static JsonNode object(Context ctx, String shape) {
    JsonNode body;
    try {
      body = JSON.readTree(io.kurir.api.RequestBody.text(ctx));
    } catch (IOException e) {
      throw ApiException.badRequest("malformed_json", "the body is not JSON");
    }
    if (body == null || !body.isObject()) {
      throw ApiException.badRequest("malformed_json", "the body is a JSON object " + shape);
    }
    return body;
  }

  static Map<String, Object> view(BookContact c) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("phone", c.phone());
    out.put("name", c.name().orElse(null));
    out.put("tags", List.copyOf(c.tags()));
    out.put("attributes", c.attributes());
    out.put("unsubscribed", c.isUnsubscribed());
    c.unsubscribed()
        .ifPresent(
            u -> {
              out.put("unsubscribed_at", u.at().toString());
              out.put("unsubscribed_by", u.by());
            });
    out.put("created_at", c.createdAt().toString());
    out.put("updated_at", c.updatedAt().toString());
    return out;
  }

  /** Refused rows as {@code [{row, reason}]}: the contact import's and a campaign list's. */
  static List<Map<String, Object>> refused(List<ImportReport.RefusedRow> rows) {
    List<Map<String, Object>> refused = new ArrayList<>();
    for (ImportReport.RefusedRow row : rows) {
      Map<String, Object> one = new LinkedHashMap<>();
      one.put("row", row.row());
      one.put("reason", row.reason());
      refused.add(one);
    }
    return refused;
  }

  private static Map<String, Object> view(ImportReport r) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("imported", r.imported());
    out.put("updated", r.updated());
    out.put("refused", refused(r.refused()));
    out.put("rows", r.rows());
    out.put("merged", r.merged());
    out.put("saved", r.saved());
    return out;
  }

  private static long licenseOf(Context ctx) {
    ApiCaller caller = V1Routes.caller(ctx);
    if (caller.device().isPresent()) {
      throw new ApiException(
          403,
          "license_key_required",
          "the contact book belongs to the license: use a license API key with the 'contacts'"
              + " scope");
    }
    return caller.license().id();
  }

  private static Optional<String> query(Context ctx, String name) {
    return Optional.ofNullable(ctx.queryParam(name)).map(String::strip).filter(s -> !s.isEmpty());
  }

  static boolean bool(Context ctx, String name) {
    return query(ctx, name).map(v -> bool(name, v)).orElse(false);
  }

  private static boolean bool(String name, String v) {
    return switch (v.toLowerCase(Locale.ROOT)) {
      case "true", "1", "yes" -> true;
      case "false", "0", "no" -> false;
      default -> throw ApiException.badRequest("invalid_" + name, name + " is true or false");
    };
  }

  private static int limit(Context ctx) {
    Optional<String> given = query(ctx, "limit");
    if (given.isEmpty()) {
      return DEFAULT_PAGE;
    }
    String v = given.get();
    if (!v.matches("\\d{1,4}") || Integer.parseInt(v) < 1 || Integer.parseInt(v) > MAX_PAGE) {
      throw ApiException.badRequest(
          "invalid_limit", "limit is a whole number from 1 to " + MAX_PAGE);
    }
    return Integer.parseInt(v);
  }

  /** The cursor after contact {@code phone}: opaque to clients, as the messages' cursor is. */
  private static String cursorOf(String phone) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(("contacts:" + phone).getBytes(StandardCharsets.UTF_8));
  }

  private static String afterPhone(String cursor) {
    try {
      String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
      if (text.matches("contacts:\\+\\d{1,20}")) {
        return text.substring("contacts:".length());
      }
    } catch (IllegalArgumentException e) {
      // not base64: refused below
    }
    throw ApiException.badRequest("invalid_cursor", "cursor is a next_cursor this API answered");
  }
}
