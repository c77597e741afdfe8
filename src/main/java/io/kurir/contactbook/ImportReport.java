package io.kurir.contactbook;

import java.util.List;

/**
 * What an import did, or would do (a preview): contacts added, contacts that were in the book
 * already and were updated, and the rows refused with why.
 *
 * @param rows the CSV's rows after the header, blank ones left out
 * @param imported contacts added to the book
 * @param updated contacts already in the book that the import changed or confirmed
 * @param merged rows whose phone an earlier row of the same CSV had: merged into that row's contact
 * @param refused each refused row's number (the header is row 1, as a spreadsheet counts) and why
 * @param saved false for a preview, which changed nothing
 */
public record ImportReport(
    int rows, int imported, int updated, int merged, List<RefusedRow> refused, boolean saved) {

  public ImportReport {
    refused = List.copyOf(refused);
  }

  /** A row the import left out: its number as a spreadsheet counts rows, and why. */
  public record RefusedRow(int row, String reason) {}
}
