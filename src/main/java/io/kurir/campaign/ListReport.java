package io.kurir.campaign;

import io.kurir.contactbook.ImportReport;
import java.util.List;

/**
 * What an upload of a campaign's list did, or would do (a preview), as the contact import reports
 * ({@link Campaigns#uploadList}).
 *
 * @param rows the CSV's rows after the header, blank ones left out
 * @param listed the contacts the list holds, one per phone
 * @param merged rows whose phone an earlier row had: merged into that row's contact
 * @param optedOut listed contacts that unsubscribed in the contact book: the campaign skips them
 * @param refused each refused row's number (the header is row 1) and why
 * @param saved false for a preview, which changed nothing
 */
public record ListReport(
    int rows,
    int listed,
    int merged,
    int optedOut,
    List<ImportReport.RefusedRow> refused,
    boolean saved) {

  public ListReport {
    refused = List.copyOf(refused);
  }
}
