package io.kurir.contactbook;

import java.util.ArrayList;
import java.util.List;

/**
 * Contact lists as CSV, read the way spreadsheets write them (RFC 4180): fields in double quotes
 * may hold the delimiter, line breaks and doubled quotes; lines end in CRLF or LF; a UTF-8 byte
 * order mark is ignored. The delimiter is the header row's: a comma, or the semicolon that
 * spreadsheets write where the decimal mark is a comma (Indonesian and most European settings), or
 * a tab; the one the header holds most of wins.
 *
 * <p>Written back with commas, every field that needs it quoted, and a field that a spreadsheet
 * would run as a formula ({@code =}, {@code +}, {@code -}, {@code @} first, except a phone number)
 * led by an apostrophe, so that an exported book opened in a spreadsheet runs nothing a contact
 * wrote.
 */
final class ContactCsv {
  private ContactCsv() {}

  /**
   * A CSV read: its header row's names as written, and its other rows.
   *
   * @param delimiter the delimiter found in the header
   */
  record Table(List<String> header, List<Row> rows, char delimiter) {}

  /**
   * A row after the header.
   *
   * @param number its number as a spreadsheet shows it: the header is row 1 (a field with a line
   *     break in it makes a row take two lines; the count is of rows, not lines)
   * @param cells its fields, as written
   */
  record Row(int number, List<String> cells) {
    boolean isBlank() {
      return cells.stream().allMatch(String::isBlank);
    }
  }

  /**
   * Reads {@code text}; rows with nothing in them (blank lines, or only delimiters, as spreadsheets
   * write below a table) are left out.
   *
   * @throws ContactRefused {@code CSV_NOT_VALID} when there is no header row, or a quoted field is
   *     never closed; {@code CSV_TOO_LARGE} past {@code maxRows} rows
   */
  static Table read(String text, int maxRows) {
    String s = text.startsWith("\uFEFF") ? text.substring(1) : text;
    char delimiter = delimiterOf(s);
    List<List<String>> records = new ArrayList<>();
    List<String> record = new ArrayList<>();
    StringBuilder field = new StringBuilder();
    boolean quoted = false;
    boolean fieldStarted = false;
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (quoted) {
        if (c == '"') {
          if (i + 1 < s.length() && s.charAt(i + 1) == '"') {
            field.append('"');
            i += 2;
            continue;
          }
          quoted = false;
        } else {
          field.append(c);
        }
        i++;
        continue;
      }
      if (c == '"' && field.toString().isBlank()) {
        field.setLength(0); // spaces before an opening quote are not the field's
        quoted = true;
        fieldStarted = true;
      } else if (c == delimiter) {
        record.add(field.toString());
        field.setLength(0);
        fieldStarted = true;
      } else if (c == '\r' || c == '\n') {
        if (c == '\r' && i + 1 < s.length() && s.charAt(i + 1) == '\n') {
          i++;
        }
        record.add(field.toString());
        field.setLength(0);
        records.add(record);
        record = new ArrayList<>();
        fieldStarted = false;
        if (records.size() > maxRows + 1) {
          throw tooLarge(maxRows);
        }
      } else {
        field.append(c);
        fieldStarted = true;
      }
      i++;
    }
    if (quoted) {
      throw new ContactRefused(
          ContactRefused.Reason.CSV_NOT_VALID,
          "row " + (records.size() + 1) + " opens a quoted field (\") that is never closed");
    }
    if (fieldStarted || field.length() > 0) {
      record.add(field.toString());
      records.add(record);
    }
    if (records.isEmpty() || records.getFirst().stream().allMatch(String::isBlank)) {
      throw new ContactRefused(
          ContactRefused.Reason.CSV_NOT_VALID,
          "the CSV has no header row: the first row names the columns (phone, name, tags, ...)");
    }
    List<Row> rows = new ArrayList<>();
    for (int r = 1; r < records.size(); r++) {
      Row row = new Row(r + 1, List.copyOf(records.get(r)));
      if (!row.isBlank()) {
        rows.add(row);
      }
    }
    if (rows.size() > maxRows) {
      throw tooLarge(maxRows);
    }
    return new Table(
        records.getFirst().stream().map(String::strip).toList(), List.copyOf(rows), delimiter);
  }

  private static ContactRefused tooLarge(int maxRows) {
    return new ContactRefused(
        ContactRefused.Reason.CSV_TOO_LARGE,
        "one import takes at most " + maxRows + " rows: split the file");
  }

  /** The delimiter the first row (outside quotes) holds most of; a comma when it holds none. */
  private static char delimiterOf(String s) {
    int commas = 0;
    int semicolons = 0;
    int tabs = 0;
    boolean quoted = false;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"') {
        quoted = !quoted;
      } else if (!quoted && (c == '\n' || c == '\r')) {
        break;
      } else if (!quoted && c == ',') {
        commas++;
      } else if (!quoted && c == ';') {
        semicolons++;
      } else if (!quoted && c == '\t') {
        tabs++;
      }
    }
    if (semicolons > commas && semicolons >= tabs) {
      return ';';
    }
    return tabs > commas ? '\t' : ',';
  }

  /** One row written as CSV (commas, CRLF), the {@code phoneColumn}'s value left as it is. */
  static String line(List<String> cells, int phoneColumn) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < cells.size(); i++) {
      if (i > 0) {
        out.append(',');
      }
      out.append(field(cells.get(i), i != phoneColumn));
    }
    return out.append("\r\n").toString();
  }

  private static String field(String value, boolean guardFormula) {
    String v = value;
    if (guardFormula && !v.isEmpty() && "=+-@\t\r".indexOf(v.charAt(0)) >= 0) {
      v = "'" + v;
    }
    if (v.indexOf(',') >= 0
        || v.indexOf('"') >= 0
        || v.indexOf('\n') >= 0
        || v.indexOf('\r') >= 0
        || v.indexOf(';') >= 0) {
      return '"' + v.replace("\"", "\"\"") + '"';
    }
    return v;
  }
}
