package io.kurir.contactbook;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.store.Database;
import io.kurir.store.Transaction;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jdbi.v3.core.Handle;

/**
 * The SQL of the contact book ({@code book_contact} and its tags, {@code book_contact_tag}). Plain,
 * portable SQL.
 *
 * <p>Thread-safe.
 */
final class ContactBookStore {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Most values bound in one {@code IN (…)}: below SQLite's and PostgreSQL's limits. */
  private static final int IN_CHUNK = 500;

  private static final String COLUMNS =
      "id, license_id, phone, name, attributes, unsubscribed_at, unsubscribed_by, created_at,"
          + " updated_at";

  /** A page's order and where it starts. */
  record Page(Optional<String> tag, Optional<Boolean> unsubscribed, Optional<String> afterPhone) {}

  private final Database db;

  ContactBookStore(Database db) {
    this.db = db;
  }

  Optional<BookContact> find(long licenseId, String phone) {
    return db.jdbi().withHandle(h -> find(h, licenseId, phone));
  }

  private static Optional<BookContact> find(Handle h, long licenseId, String phone) {
    Optional<BookContact> found =
        h.createQuery("SELECT " + COLUMNS + " FROM book_contact WHERE license_id = ? AND phone = ?")
            .bind(0, licenseId)
            .bind(1, phone)
            .map((rs, ctx) -> contact(rs))
            .findOne();
    return found.map(c -> withTags(h, List.of(c)).getFirst());
  }

  /** The license's contacts among {@code phones}, by phone. */
  Map<String, BookContact> byPhones(long licenseId, Collection<String> phones) {
    return db.jdbi()
        .withHandle(
            h -> {
              Map<String, BookContact> found = new HashMap<>();
              List<String> all = List.copyOf(phones);
              for (int i = 0; i < all.size(); i += IN_CHUNK) {
                List<BookContact> chunk =
                    h.createQuery(
                            "SELECT "
                                + COLUMNS
                                + " FROM book_contact WHERE license_id = :license"
                                + " AND phone IN (<phones>)")
                        .bind("license", licenseId)
                        .bindList("phones", all.subList(i, Math.min(all.size(), i + IN_CHUNK)))
                        .map((rs, ctx) -> contact(rs))
                        .list();
                withTags(h, chunk).forEach(c -> found.put(c.phone(), c));
              }
              return found;
            });
  }

  /**
   * Writes {@code contacts} in one transaction: a contact whose id is not in the book is inserted,
   * one that is replaces its name and attributes; tags are replaced by the contact's. An update
   * never subscribes a contact again (an opt-out that arrived while an import ran holds): only
   * {@link #resubscribe} does. A contact given as unsubscribed (an exported book imported again) is
   * unsubscribed if it is not already, keeping an earlier opt-out's time and reason.
   */
  void save(List<BookContact> contacts, Collection<Long> existingIds) {
    db.writes()
        .write(
            h -> {
              for (BookContact given : contacts) {
                BookContact c = given;
                if (existingIds.contains(c.id())) {
                  update(h, c);
                  h.createUpdate("DELETE FROM book_contact_tag WHERE contact_id = ?")
                      .bind(0, c.id())
                      .execute();
                } else if (!insert(h, c)) {
                  // Added by another import or call since this one read the book: that contact
                  // takes this one's values (the later write wins) and keeps its tags too.
                  c = withId(c, find(h, c.licenseId(), c.phone()).orElseThrow().id());
                  update(h, c);
                }
                if (c.unsubscribed().isPresent()) { // a no-op when it is already
                  unsubscribe(
                      Transaction.of(h), c.id(), c.licenseId(), c.phone(), c.unsubscribed().get());
                }
                for (String tag : c.tags()) {
                  h.createUpdate(
                          "INSERT INTO book_contact_tag (contact_id, license_id, tag)"
                              + " VALUES (?, ?, ?) ON CONFLICT (contact_id, tag) DO NOTHING")
                      .bind(0, c.id())
                      .bind(1, c.licenseId())
                      .bind(2, tag)
                      .execute();
                }
              }
              return null;
            });
  }

  /** Inserts {@code c}; false when the license's book has its phone already. */
  private static boolean insert(Handle h, BookContact c) {
    return h.createUpdate(
                "INSERT INTO book_contact ("
                    + COLUMNS
                    + ") VALUES (:id, :license, :phone, :name, :attributes, :unsubscribedAt,"
                    + " :unsubscribedBy, :createdAt, :updatedAt)"
                    + " ON CONFLICT (license_id, phone) DO NOTHING")
            .bindMap(values(c))
            .execute()
        == 1;
  }

  private static BookContact withId(BookContact c, long id) {
    return new BookContact(
        id,
        c.licenseId(),
        c.phone(),
        c.name(),
        c.attributes(),
        c.tags(),
        c.unsubscribed(),
        c.createdAt(),
        c.updatedAt());
  }

  private static void update(Handle h, BookContact c) {
    h.createUpdate(
            "UPDATE book_contact SET name = :name, attributes = :attributes,"
                + " updated_at = :updatedAt WHERE id = :id AND license_id = :license")
        .bindMap(values(c))
        .execute();
  }

  private static Map<String, Object> values(BookContact c) {
    Map<String, Object> v = new HashMap<>();
    v.put("id", c.id());
    v.put("license", c.licenseId());
    v.put("phone", c.phone());
    v.put("name", c.name().orElse(null));
    v.put("attributes", json(c.attributes()));
    v.put("unsubscribedAt", c.unsubscribed().map(u -> u.at().toEpochMilli()).orElse(null));
    v.put("unsubscribedBy", c.unsubscribed().map(BookContact.Unsubscribed::by).orElse(null));
    v.put("createdAt", c.createdAt().toEpochMilli());
    v.put("updatedAt", c.updatedAt().toEpochMilli());
    return v;
  }

  /**
   * Marks the license's contact {@code phone} unsubscribed in the caller's transaction, adding it
   * to the book (with no name) when it is not there, so that a later import keeps it unsubscribed;
   * one already unsubscribed keeps its first reason. Returns whether it changed.
   */
  static boolean unsubscribe(
      Transaction tx, long newId, long licenseId, String phone, BookContact.Unsubscribed how) {
    Handle h = tx.handle();
    int marked =
        h.createUpdate(
                "UPDATE book_contact SET unsubscribed_at = ?, unsubscribed_by = ?, updated_at = ?"
                    + " WHERE license_id = ? AND phone = ? AND unsubscribed_at IS NULL")
            .bind(0, how.at().toEpochMilli())
            .bind(1, how.by())
            .bind(2, how.at().toEpochMilli())
            .bind(3, licenseId)
            .bind(4, phone)
            .execute();
    if (marked > 0 || find(h, licenseId, phone).isPresent()) {
      return marked > 0;
    }
    return insert(
            h,
            new BookContact(
                newId,
                licenseId,
                phone,
                Optional.empty(),
                new TreeMap<>(),
                new TreeSet<>(),
                Optional.of(how),
                how.at(),
                how.at()))
        || unsubscribe(tx, newId, licenseId, phone, how); // added meanwhile: mark that one
  }

  /** Subscribes the license's contact {@code phone} again; false when it was not unsubscribed. */
  boolean resubscribe(long licenseId, String phone, Instant at) {
    return db.writes()
        .write(
            h ->
                h.createUpdate(
                            "UPDATE book_contact SET unsubscribed_at = NULL, unsubscribed_by ="
                                + " NULL, updated_at = ? WHERE license_id = ? AND phone = ?"
                                + " AND unsubscribed_at IS NOT NULL")
                        .bind(0, at.toEpochMilli())
                        .bind(1, licenseId)
                        .bind(2, phone)
                        .execute()
                    > 0);
  }

  /** Removes the license's contact {@code phone}; false when the book has none. */
  boolean delete(long licenseId, String phone, Instant now) {
    return db.writes()
        .write(
            h -> {
              Optional<BookContact> c = find(h, licenseId, phone);
              if (c.isEmpty()) {
                return false;
              }
              h.createUpdate("DELETE FROM book_contact_tag WHERE contact_id = ?")
                  .bind(0, c.get().id())
                  .execute();
              if (c.get().unsubscribed().isPresent()) {
                // An opt-out outlives the contact: its phone stays, unsubscribed, so that no
                // import or campaign list brings the number back.
                h.createUpdate(
                        "UPDATE book_contact SET name = NULL, attributes = ?, updated_at = ?"
                            + " WHERE id = ?")
                    .bind(0, json(java.util.Map.of()))
                    .bind(1, now.toEpochMilli())
                    .bind(2, c.get().id())
                    .execute();
                return true;
              }
              h.createUpdate("DELETE FROM book_contact WHERE id = ?")
                  .bind(0, c.get().id())
                  .execute();
              return true;
            });
  }

  /** Up to {@code limit} of the license's contacts matching {@code page}, by phone. */
  List<BookContact> page(long licenseId, Page page, int limit) {
    List<String> where = new ArrayList<>(List.of("c.license_id = :license"));
    page.tag()
        .ifPresent(
            t ->
                where.add(
                    "EXISTS (SELECT 1 FROM book_contact_tag t WHERE t.license_id = :license"
                        + " AND t.tag = :tag AND t.contact_id = c.id)"));
    page.unsubscribed()
        .ifPresent(
            u -> where.add(u ? "c.unsubscribed_at IS NOT NULL" : "c.unsubscribed_at IS NULL"));
    page.afterPhone().ifPresent(p -> where.add("c.phone > :after"));
    String sql =
        "SELECT c.id, c.license_id, c.phone, c.name, c.attributes, c.unsubscribed_at,"
            + " c.unsubscribed_by, c.created_at, c.updated_at FROM book_contact c WHERE "
            + String.join(" AND ", where)
            + " ORDER BY c.phone LIMIT :limit";
    return db.jdbi()
        .withHandle(
            h -> {
              var q = h.createQuery(sql).bind("license", licenseId).bind("limit", limit);
              page.tag().ifPresent(t -> q.bind("tag", t));
              page.afterPhone().ifPresent(p -> q.bind("after", p));
              return withTags(h, q.map((rs, ctx) -> contact(rs)).list());
            });
  }

  /**
   * Up to {@code limit} of the license's subscribed contacts with any of {@code tags}, by phone,
   * those after {@code afterPhone}: a page of a campaign's audience.
   */
  List<BookContact> audiencePage(
      long licenseId, Collection<String> tags, String afterPhone, int limit) {
    return db.jdbi()
        .withHandle(
            h ->
                withTags(
                    h,
                    h.createQuery(
                            "SELECT c.id, c.license_id, c.phone, c.name, c.attributes,"
                                + " c.unsubscribed_at, c.unsubscribed_by, c.created_at,"
                                + " c.updated_at FROM book_contact c WHERE c.license_id = :license"
                                + " AND c.unsubscribed_at IS NULL AND c.phone > :after"
                                + " AND EXISTS (SELECT 1 FROM book_contact_tag t"
                                + " WHERE t.license_id = :license AND t.tag IN (<tags>)"
                                + " AND t.contact_id = c.id)"
                                + " ORDER BY c.phone LIMIT :limit")
                        .bind("license", licenseId)
                        .bind("after", afterPhone)
                        .bindList("tags", List.copyOf(tags))
                        .bind("limit", limit)
                        .map((rs, ctx) -> contact(rs))
                        .list()));
  }

  /** How many contacts the license's book holds, and how many of them are unsubscribed. */
  long[] counts(long licenseId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT COUNT(*) AS n, COUNT(unsubscribed_at) AS u FROM book_contact"
                            + " WHERE license_id = ?")
                    .bind(0, licenseId)
                    .map((rs, ctx) -> new long[] {rs.getLong("n"), rs.getLong("u")})
                    .one());
  }

  /** The license's tags with how many contacts have each, by tag. */
  SortedMap<String, Long> tags(long licenseId) {
    return db.jdbi()
        .withHandle(
            h -> {
              SortedMap<String, Long> tags = new TreeMap<>();
              h.createQuery(
                      "SELECT tag, COUNT(*) AS n FROM book_contact_tag WHERE license_id = ?"
                          + " GROUP BY tag")
                  .bind(0, licenseId)
                  .map((rs, ctx) -> Map.entry(rs.getString("tag"), rs.getLong("n")))
                  .forEach(e -> tags.put(e.getKey(), e.getValue()));
              return tags;
            });
  }

  private static List<BookContact> withTags(Handle h, List<BookContact> contacts) {
    if (contacts.isEmpty()) {
      return contacts;
    }
    Map<Long, TreeSet<String>> tags = new HashMap<>();
    h.createQuery("SELECT contact_id, tag FROM book_contact_tag WHERE contact_id IN (<ids>)")
        .bindList("ids", contacts.stream().map(BookContact::id).toList())
        .map((rs, ctx) -> Map.entry(rs.getLong("contact_id"), rs.getString("tag")))
        .forEach(e -> tags.computeIfAbsent(e.getKey(), k -> new TreeSet<>()).add(e.getValue()));
    return contacts.stream()
        .map(
            c ->
                new BookContact(
                    c.id(),
                    c.licenseId(),
                    c.phone(),
                    c.name(),
                    c.attributes(),
                    tags.getOrDefault(c.id(), new TreeSet<>()),
                    c.unsubscribed(),
                    c.createdAt(),
                    c.updatedAt()))
        .toList();
  }

  private static BookContact contact(ResultSet rs) throws SQLException {
    long unsubscribedAt = rs.getLong("unsubscribed_at");
    Optional<BookContact.Unsubscribed> unsubscribed =
        rs.wasNull()
            ? Optional.empty()
            : Optional.of(
                new BookContact.Unsubscribed(
                    Instant.ofEpochMilli(unsubscribedAt), rs.getString("unsubscribed_by")));
    return new BookContact(
        rs.getLong("id"),
        rs.getLong("license_id"),
        rs.getString("phone"),
        Optional.ofNullable(rs.getString("name")),
        attributes(rs.getString("attributes")),
        new TreeSet<>(),
        unsubscribed,
        Instant.ofEpochMilli(rs.getLong("created_at")),
        Instant.ofEpochMilli(rs.getLong("updated_at")));
  }

  private static String json(Map<String, String> attributes) {
    try {
      return JSON.writeValueAsString(attributes);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a map of strings is always JSON", e);
    }
  }

  private static SortedMap<String, String> attributes(String json) {
    try {
      return new TreeMap<>(JSON.readValue(json, new TypeReference<Map<String, String>>() {}));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("book_contact.attributes is not a JSON object", e);
    }
  }
}
