package io.kurir.contactbook;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A list of contacts read from a CSV in the contact import's format, kept apart from the book: a
 * campaign's uploaded audience ({@link ContactBook#readList}). Rows of one phone are merged as the
 * import merges them, the later row's values winning.
 *
 * @param rows the CSV's rows after the header, blank ones left out
 * @param entries one per phone, in the order first seen
 * @param merged rows whose phone an earlier row had: merged into that row's entry
 * @param refused each refused row's number (the header is row 1) and why
 */
public record ContactList(
    int rows, List<Entry> entries, int merged, List<ImportReport.RefusedRow> refused) {

  public ContactList {
    entries = List.copyOf(entries);
    refused = List.copyOf(refused);
  }

  /**
   * One listed contact.
   *
   * @param phone in E.164, read as the Eco API reads numbers
   * @param name its name, if the list gives one
   * @param attributes the list's other columns, by attribute name
   */
  public record Entry(String phone, Optional<String> name, SortedMap<String, String> attributes) {

    public Entry {
      attributes = new TreeMap<>(attributes);
    }

    /** Its values by variable name, as a book contact's ({@code phone}, {@code name}, …). */
    public Map<String, String> variables() {
      Map<String, String> v = new TreeMap<>(attributes);
      v.put("phone", phone);
      v.put("name", name.orElse(""));
      return v;
    }
  }
}
