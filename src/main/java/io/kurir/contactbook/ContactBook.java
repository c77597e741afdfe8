package io.kurir.contactbook;

import io.kurir.phone.PhoneNumbers;
import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.store.Transaction;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * A license's contact book: the people its campaigns write to, with their names, attributes and
 * tags, imported from a spreadsheet's CSV and exported again; and their opt-outs, which every
 * campaign honours. A contact's phone, read as the Eco API reads numbers, is its key within the
 * license: adding the same number again updates the one contact.
 *
 * <p>Thread-safe.
 */
public final class ContactBook {
  /** Most rows one import takes; a larger list is split (it is also bounded by http.max-body). */
  public static final int MAX_IMPORT_ROWS = 200_000;

  /** Contacts written in one transaction of an import. */
  private static final int WRITE_BATCH = 500;

  static final int MAX_NAME = 200;
  static final int MAX_VALUE = 1_000;
  static final int MAX_TAG = 64;

  /** The column names a CSV's phone column may have, as spreadsheets people keep name it. */
  private static final Set<String> PHONE_COLUMNS =
      Set.of(
          "phone",
          "phone_number",
          "number",
          "mobile",
          "whatsapp",
          "wa",
          "nomor",
          "nomor_hp",
          "no_hp",
          "hp",
          "no_wa",
          "telepon");

  private static final Set<String> NAME_COLUMNS = Set.of("name", "nama");
  private static final Set<String> TAG_COLUMNS = Set.of("tags", "tag");

  /**
   * The export's column of when a contact unsubscribed: on import, a filled cell unsubscribes the
   * contact (an export imported elsewhere keeps its opt-outs); an empty one changes nothing, as an
   * import never subscribes anyone again. Never an attribute.
   */
  private static final String UNSUBSCRIBED_COLUMN = "unsubscribed";

  /** An attribute's name: what a campaign's {@code {variable}} can name. */
  private static final Pattern ATTRIBUTE = Pattern.compile("[\\p{L}\\p{N}_]{1,64}");

  private final Database db;
  private final ContactBookStore store;
  private final IdGenerator ids;
  private final Clock clock;
  private final PhoneNumbers phones;
  private final OptOutWords optOutWords;

  public ContactBook(
      Database db, IdGenerator ids, Clock clock, PhoneNumbers phones, OptOutWords optOutWords) {
    this.db = db;
    this.store = new ContactBookStore(db);
    this.ids = ids;
    this.clock = clock;
    this.phones = phones;
    this.optOutWords = optOutWords;
  }

  /** The words that, replied alone, unsubscribe a contact. */
  public OptOutWords optOutWords() {
    return optOutWords;
  }

  /**
   * Imports the contacts of a CSV (a header row; columns {@code phone}, {@code name} and {@code
   * tags}, tags separated by {@code ;}, every other column an attribute), or only says what it
   * would do when {@code preview}. A contact already in the book keeps what the row leaves empty
   * and gains the row's tags (an import never takes a tag away, nor subscribes again a contact who
   * opted out); rows of one phone are merged, the later row's values winning.
   *
   * @throws ContactRefused {@code CSV_NOT_VALID} when the CSV has no header or no phone column,
   *     {@code CSV_TOO_LARGE} past {@link #MAX_IMPORT_ROWS}
   */
  public ImportReport importCsv(long licenseId, String csv, boolean preview) {
    Read read = read(csv, true);
    Map<String, Contribution> byPhone = read.byPhone();
    Map<String, BookContact> existing = store.byPhones(licenseId, byPhone.keySet());
    Instant now = clock.instant();
    List<BookContact> toSave = new ArrayList<>();
    int imported = 0;
    int updated = 0;
    for (Contribution c : byPhone.values()) {
      BookContact before = existing.get(c.phone());
      if (before == null) {
        imported++;
      } else {
        updated++;
      }
      toSave.add(c.applyTo(Optional.ofNullable(before), licenseId, preview ? 0 : ids.next(), now));
    }
    if (!preview) {
      Set<Long> existingIds = new java.util.HashSet<>();
      existing.values().forEach(b -> existingIds.add(b.id()));
      for (int i = 0; i < toSave.size(); i += WRITE_BATCH) {
        store.save(toSave.subList(i, Math.min(toSave.size(), i + WRITE_BATCH)), existingIds);
      }
    }
    return new ImportReport(
        read.rows(), imported, updated, read.merged(), read.refused(), !preview);
  }

  /**
   * Reads a list of contacts from a CSV in the import's format (a header row; {@code phone}, {@code
   * name}, every other column an attribute) without putting it into the book: a campaign's uploaded
   * audience. A {@code tags} column is ignored (a list is not the book, whose tags are its own), so
   * the file that an import takes is taken as it is. Rows of one phone are merged as an import
   * merges them.
   *
   * @throws ContactRefused {@code CSV_NOT_VALID} when the CSV has no header or no phone column,
   *     {@code CSV_TOO_LARGE} past {@link #MAX_IMPORT_ROWS}
   */
  public ContactList readList(String csv) {
    Read read = read(csv, false);
    List<ContactList.Entry> entries = new ArrayList<>(read.byPhone().size());
    read.byPhone()
        .values()
        .forEach(c -> entries.add(new ContactList.Entry(c.phone(), c.name(), c.attributes())));
    return new ContactList(read.rows(), entries, read.merged(), read.refused());
  }

  /**
   * A CSV's rows read and merged by phone.
   *
   * @param rows the rows after the header, blank ones left out
   * @param byPhone what the CSV says of each phone, in the order first seen
   * @param merged rows whose phone an earlier row had
   * @param refused the rows refused, with why
   */
  private record Read(
      int rows,
      Map<String, Contribution> byPhone,
      int merged,
      List<ImportReport.RefusedRow> refused) {}

  /** Reads {@code csv}'s rows, merging rows of one phone (the later row's values win). */
  private Read read(String csv, boolean readTags) {
    ContactCsv.Table table = ContactCsv.read(csv, MAX_IMPORT_ROWS);
    Columns columns = columns(table.header());
    List<ImportReport.RefusedRow> refused = new ArrayList<>();
    Map<String, Contribution> byPhone = new LinkedHashMap<>();
    int merged = 0;
    for (ContactCsv.Row row : table.rows()) {
      try {
        Contribution c = columns.read(row, this, readTags);
        Contribution earlier = byPhone.get(c.phone());
        if (earlier != null) {
          merged++;
          byPhone.put(c.phone(), earlier.then(c));
        } else {
          byPhone.put(c.phone(), c);
        }
      } catch (ContactRefused e) {
        refused.add(new ImportReport.RefusedRow(row.number(), e.getMessage()));
      }
    }
    return new Read(table.rows().size(), byPhone, merged, refused);
  }

  /** Which of {@code phones} (E.164) the license's book holds as unsubscribed. */
  public Set<String> unsubscribedAmong(long licenseId, java.util.Collection<String> phones) {
    Set<String> out = new java.util.HashSet<>();
    store
        .byPhones(licenseId, phones)
        .values()
        .forEach(
            c -> {
              if (c.unsubscribed().isPresent()) {
                out.add(c.phone());
              }
            });
    return out;
  }

  /**
   * Adds the contact {@code phone}, or updates the one the book has: what is given replaces what
   * was there ({@code tags} and {@code attributes} as a whole, when given); what is not given
   * stays.
   */
  public BookContact put(
      long licenseId,
      String phone,
      Optional<String> name,
      Optional<Map<String, String>> attributes,
      Optional<List<String>> tags) {
    String e164 = phoneOf(phone);
    Optional<BookContact> before = store.find(licenseId, e164);
    Instant now = clock.instant();
    SortedMap<String, String> attrs =
        attributes
            .map(this::checkedAttributes)
            .orElseGet(() -> before.map(BookContact::attributes).orElseGet(TreeMap::new));
    TreeSet<String> newTags =
        tags.map(this::checkedTags)
            .orElseGet(() -> before.map(b -> new TreeSet<>(b.tags())).orElseGet(TreeSet::new));
    BookContact after =
        new BookContact(
            before.map(BookContact::id).orElseGet(ids::next),
            licenseId,
            e164,
            name.map(n -> checkedName(n))
                .filter(n -> !n.isEmpty())
                .or(() -> before.flatMap(BookContact::name)),
            attrs,
            newTags,
            before.flatMap(BookContact::unsubscribed),
            before.map(BookContact::createdAt).orElse(now),
            now);
    store.save(List.of(after), before.map(b -> Set.of(b.id())).orElse(Set.of()));
    return after;
  }

  /** The license's contact {@code phone}. */
  public BookContact get(long licenseId, String phone) {
    return store.find(licenseId, phoneOf(phone)).orElseThrow(() -> notFound(phone));
  }

  /**
   * Removes the license's contact {@code phone}; one that unsubscribed keeps its phone and its
   * opt-out (name, attributes and tags go), so that no import brings it back.
   */
  public void delete(long licenseId, String phone) {
    if (!store.delete(licenseId, phoneOf(phone), clock.instant())) {
      throw notFound(phone);
    }
  }

  /**
   * Unsubscribes the license's contact {@code phone} ({@code by}: {@code api}, {@code console}), or
   * subscribes it again; adds it when unsubscribing a number the book does not have.
   */
  public BookContact setUnsubscribed(
      long licenseId, String phone, boolean unsubscribed, String by) {
    String e164 = phoneOf(phone);
    if (unsubscribed) {
      db.writes()
          .writeIn(
              tx ->
                  ContactBookStore.unsubscribe(
                      tx,
                      ids.next(),
                      licenseId,
                      e164,
                      new BookContact.Unsubscribed(clock.instant(), by)));
    } else {
      store.find(licenseId, e164).orElseThrow(() -> notFound(phone));
      store.resubscribe(licenseId, e164, clock.instant());
    }
    return store.find(licenseId, e164).orElseThrow(() -> notFound(phone));
  }

  /**
   * A message arrived: when its whole text is an opt-out word and its sender a phone, the sender is
   * unsubscribed from the license's campaigns, in the caller's transaction (the one that stores the
   * message). Returns whether it was.
   */
  public boolean optOutIfAsked(
      Transaction tx, long licenseId, String senderE164, String text, Instant at) {
    Optional<String> word = optOutWords.match(text);
    if (word.isEmpty() || senderE164.isEmpty()) {
      return false;
    }
    String phone = senderE164.startsWith("+") ? senderE164 : "+" + senderE164;
    return ContactBookStore.unsubscribe(
        tx, ids.next(), licenseId, phone, new BookContact.Unsubscribed(at, "reply:" + word.get()));
  }

  /**
   * One page of the license's contacts by phone, those after {@code afterPhone}: with {@code tag},
   * or unsubscribed or not, when given.
   */
  public List<BookContact> page(
      long licenseId,
      Optional<String> tag,
      Optional<Boolean> unsubscribed,
      Optional<String> afterPhone,
      int limit) {
    return store.page(
        licenseId,
        new ContactBookStore.Page(tag.map(ContactBook::tagKey), unsubscribed, afterPhone),
        limit);
  }

  /**
   * One page of a campaign's audience: the license's contacts that have not opted out and have any
   * of {@code tags}, by phone, those after {@code afterPhone} ({@code ""}: from the first).
   */
  public List<BookContact> audiencePage(
      long licenseId, Set<String> tags, String afterPhone, int limit) {
    if (tags.isEmpty()) {
      return List.of();
    }
    return store.audiencePage(
        licenseId, tags.stream().map(ContactBook::tagKey).toList(), afterPhone, limit);
  }

  /** Every contact of the license (with {@code tag}, when given), by phone, a page at a time. */
  public void forEach(long licenseId, Optional<String> tag, Consumer<BookContact> each) {
    Optional<String> after = Optional.empty();
    while (true) {
      List<BookContact> page = page(licenseId, tag, Optional.empty(), after, WRITE_BATCH);
      page.forEach(each);
      if (page.size() < WRITE_BATCH) {
        return;
      }
      after = Optional.of(page.getLast().phone());
    }
  }

  /** The license's tags with how many contacts have each. */
  public SortedMap<String, Long> tags(long licenseId) {
    return store.tags(licenseId);
  }

  /** How many contacts the license's book holds: all, and those unsubscribed. */
  public Counts counts(long licenseId) {
    long[] n = store.counts(licenseId);
    return new Counts(n[0], n[1]);
  }

  /** How many contacts a book holds, and how many of them opted out. */
  public record Counts(long contacts, long unsubscribed) {}

  /**
   * The license's book as CSV: {@code phone,name,tags,unsubscribed} and one column per attribute
   * any contact has, every contact a row (a page read at a time).
   */
  public void exportCsv(long licenseId, Optional<String> tag, Consumer<String> lines) {
    TreeSet<String> attributeNames = new TreeSet<>();
    forEach(licenseId, tag, c -> attributeNames.addAll(c.attributes().keySet()));
    List<String> header = new ArrayList<>(List.of("phone", "name", "tags", "unsubscribed"));
    header.addAll(attributeNames);
    lines.accept(ContactCsv.line(header, -1));
    forEach(
        licenseId,
        tag,
        c -> {
          List<String> cells = new ArrayList<>();
          cells.add(c.phone());
          cells.add(c.name().orElse(""));
          cells.add(String.join(";", c.tags()));
          cells.add(c.unsubscribed().map(u -> u.at().toString()).orElse(""));
          attributeNames.forEach(a -> cells.add(c.attributes().getOrDefault(a, "")));
          lines.accept(ContactCsv.line(cells, 0));
        });
  }

  /**
   * One row as this book's CSV writes it (commas, CRLF, a cell that a spreadsheet would run as a
   * formula guarded), the {@code phoneColumn}'s value left as it is: for other lists of contacts,
   * such as a campaign's report.
   */
  public static String csvLine(List<String> cells, int phoneColumn) {
    return ContactCsv.line(cells, phoneColumn);
  }

  /** A tag as kept: trimmed, lower case. */
  public static String tagKey(String tag) {
    return tag.strip().toLowerCase(Locale.ROOT);
  }

  /** {@code phone} in E.164, as the Eco API reads numbers. */
  String phoneOf(String phone) {
    return phones
        .normalize(phone)
        .orElseThrow(
            () ->
                new ContactRefused(
                    ContactRefused.Reason.PHONE_NOT_VALID,
                    "'" + phone.strip() + "' is not a phone number"));
  }

  String checkedName(String name) {
    String n = name.strip();
    if (n.length() > MAX_NAME) {
      throw field("a name is at most " + MAX_NAME + " characters");
    }
    return n;
  }

  TreeSet<String> checkedTags(List<String> tags) {
    TreeSet<String> out = new TreeSet<>();
    for (String t : tags) {
      String key = tagKey(t);
      if (key.isEmpty()) {
        continue;
      }
      if (key.length() > MAX_TAG || key.contains(";") || key.contains(",")) {
        throw field("a tag is at most " + MAX_TAG + " characters, without ; or ,: '" + t + "'");
      }
      out.add(key);
    }
    return out;
  }

  SortedMap<String, String> checkedAttributes(Map<String, String> attributes) {
    SortedMap<String, String> out = new TreeMap<>();
    attributes.forEach(
        (name, value) -> {
          String key = attributeKey(name);
          if (!ATTRIBUTE.matcher(key).matches() || isReserved(key)) {
            throw field(
                "an attribute's name is letters, digits and _ (not phone, name, tags or unsubscribed):"
                    + " '"
                    + name
                    + "'");
          }
          String v = value == null ? "" : value.strip();
          if (v.length() > MAX_VALUE) {
            throw field("attribute " + key + " is longer than " + MAX_VALUE + " characters");
          }
          if (!v.isEmpty()) {
            out.put(key, v);
          }
        });
    return out;
  }

  /**
   * A column's or attribute's name as kept: trimmed, lower case, spaces and dashes as {@code _}.
   */
  static String attributeKey(String name) {
    return name.strip().toLowerCase(Locale.ROOT).replaceAll("[\\s\\-]+", "_");
  }

  private static boolean isReserved(String key) {
    return PHONE_COLUMNS.contains(key)
        || NAME_COLUMNS.contains(key)
        || TAG_COLUMNS.contains(key)
        || key.equals(UNSUBSCRIBED_COLUMN);
  }

  private static ContactRefused field(String message) {
    return new ContactRefused(ContactRefused.Reason.FIELD_NOT_VALID, message);
  }

  private static ContactRefused notFound(String phone) {
    return new ContactRefused(
        ContactRefused.Reason.NOT_FOUND, "the contact book has no contact " + phone.strip());
  }

  /** Which of a CSV's columns is the phone, the name, the tags; the others are attributes. */
  private record Columns(
      int phone, int name, int tags, int unsubscribed, Map<Integer, String> attributes) {

    Contribution read(ContactCsv.Row row, ContactBook book, boolean readTags) {
      List<String> cells = row.cells();
      String phoneCell = cell(cells, phone);
      if (phoneCell.isBlank()) {
        throw new ContactRefused(ContactRefused.Reason.PHONE_NOT_VALID, "no phone number");
      }
      String e164 = book.phoneOf(phoneCell);
      Optional<String> n =
          name < 0 ? Optional.empty() : Optional.of(book.checkedName(cell(cells, name)));
      TreeSet<String> t =
          tags < 0 || !readTags
              ? new TreeSet<>()
              : book.checkedTags(List.of(cell(cells, tags).split("[;,]")));
      Map<String, String> given = new LinkedHashMap<>();
      attributes.forEach((column, key) -> given.put(key, cell(cells, column)));
      boolean unsubscribes = unsubscribed >= 0 && !cell(cells, unsubscribed).isEmpty();
      return new Contribution(
          e164, n.filter(x -> !x.isEmpty()), book.checkedAttributes(given), t, unsubscribes);
    }

    private static String cell(List<String> cells, int column) {
      return column < cells.size() ? cells.get(column).strip() : "";
    }
  }

  private static Columns columns(List<String> header) {
    int phone = -1;
    int name = -1;
    int tags = -1;
    int unsubscribed = -1;
    Map<Integer, String> attributes = new LinkedHashMap<>();
    Set<String> seen = new java.util.HashSet<>();
    for (int i = 0; i < header.size(); i++) {
      String key = attributeKey(header.get(i));
      if (key.isEmpty()) {
        continue; // an unnamed column (a spreadsheet's empty trailing one) is not read
      }
      if (!seen.add(key)) {
        throw new ContactRefused(
            ContactRefused.Reason.CSV_NOT_VALID,
            "two columns are named " + header.get(i).strip() + ": name each column once");
      }
      if (PHONE_COLUMNS.contains(key) && phone < 0) {
        phone = i;
      } else if (NAME_COLUMNS.contains(key) && name < 0) {
        name = i;
      } else if (TAG_COLUMNS.contains(key) && tags < 0) {
        tags = i;
      } else if (key.equals(UNSUBSCRIBED_COLUMN)) {
        unsubscribed = i;
      } else if (ATTRIBUTE.matcher(key).matches() && !isReserved(key)) {
        attributes.put(i, key);
      } else {
        throw new ContactRefused(
            ContactRefused.Reason.CSV_NOT_VALID,
            "column '"
                + header.get(i).strip()
                + "' cannot be an attribute: name it with letters, digits and _");
      }
    }
    if (phone < 0) {
      throw new ContactRefused(
          ContactRefused.Reason.CSV_NOT_VALID,
          "the header row names no phone column: call it phone (or number, whatsapp, nomor,"
              + " no_hp)");
    }
    return new Columns(phone, name, tags, unsubscribed, attributes);
  }

  /** What one row (or several rows of one phone, merged) says of a contact. */
  private record Contribution(
      String phone,
      Optional<String> name,
      SortedMap<String, String> attributes,
      TreeSet<String> tags,
      boolean unsubscribes) {

    /** This row, then {@code later} of the same phone: the later row's values win. */
    Contribution then(Contribution later) {
      SortedMap<String, String> a = new TreeMap<>(attributes);
      a.putAll(later.attributes);
      TreeSet<String> t = new TreeSet<>(tags);
      t.addAll(later.tags);
      return new Contribution(
          phone, later.name.or(() -> name), a, t, unsubscribes || later.unsubscribes);
    }

    BookContact applyTo(Optional<BookContact> before, long licenseId, long newId, Instant now) {
      SortedMap<String, String> a =
          new TreeMap<>(before.map(BookContact::attributes).orElseGet(TreeMap::new));
      a.putAll(attributes);
      TreeSet<String> t = new TreeSet<>(before.map(BookContact::tags).orElseGet(TreeSet::new));
      t.addAll(tags);
      return new BookContact(
          before.map(BookContact::id).orElse(newId),
          licenseId,
          phone,
          name.or(() -> before.flatMap(BookContact::name)),
          a,
          t,
          before
              .flatMap(BookContact::unsubscribed)
              .or(
                  () ->
                      unsubscribes
                          ? Optional.of(new BookContact.Unsubscribed(now, "import"))
                          : Optional.empty()),
          before.map(BookContact::createdAt).orElse(now),
          now);
    }
  }
}
