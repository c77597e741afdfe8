package io.kurir.api.console;

import io.javalin.http.Context;
import io.javalin.http.UploadedFile;
import io.kurir.api.ApiException;
import io.kurir.contactbook.BookContact;
import io.kurir.contactbook.ContactBook;
import io.kurir.contactbook.ImportReport;
import io.kurir.tenant.License;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A license's contact book: its contacts by tag a page at a time, a spreadsheet's CSV imported
 * after a preview of what would be imported and which rows are refused, the book exported as CSV, a
 * contact unsubscribed, subscribed again or removed.
 */
final class ContactPages {
  private static final int PAGE = 100;

  private final ConsoleDeps deps;

  ContactPages(ConsoleDeps deps) {
    this.deps = deps;
  }

  void list(Context ctx, ConsoleRoutes.Viewer v) {
    License l = deps.tenants().license(Pages.id(ctx));
    ContactBook book = deps.contactBook();
    Optional<String> tag = Pages.query(ctx, "tag");
    Optional<String> after = Pages.query(ctx, "after");
    List<BookContact> page = book.page(l.id(), tag, Optional.empty(), after, PAGE + 1);
    ContactBook.Counts counts = book.counts(l.id());
    View view =
        new View(
            base(l.id()),
            tag.orElse(""),
            page.stream().limit(PAGE).toList(),
            page.size() > PAGE ? Optional.of(page.get(PAGE - 1).phone()) : Optional.empty(),
            book.tags(l.id()),
            counts.contacts(),
            counts.unsubscribed(),
            String.join(", ", book.optOutWords().words()),
            v.csrf());
    Pages.operator(ctx, v, "Contacts of " + l.name(), "contacts.jte", view);
  }

  /**
   * A page of the book: its base path, the tag shown (empty: all), the contacts, where the next
   * page starts, every tag with its count, the book's counts and the opt-out words.
   */
  record View(
      String base,
      String tag,
      List<BookContact> contacts,
      Optional<String> nextAfter,
      Map<String, Long> tags,
      long total,
      long unsubscribed,
      String optOutWords,
      String csrf) {}

  /**
   * The CSV sent (a file or pasted text): without {@code confirm}, the preview; with it, the import
   * and what it did.
   */
  void importCsv(Context ctx, ConsoleRoutes.Viewer v) {
    License l = deps.tenants().license(Pages.id(ctx));
    String csv = csvOf(ctx);
    boolean confirmed = Pages.field(ctx, "confirm").isPresent();
    ImportReport report = deps.contactBook().importCsv(l.id(), csv, !confirmed);
    Pages.operator(
        ctx,
        v,
        (confirmed ? "Imported into " : "Import into ") + l.name(),
        "contactsImport.jte",
        new ImportView(base(l.id()), report, confirmed ? "" : csv, v.csrf()));
  }

  /** An import's report; {@code csv} is the text to import on confirming (empty once imported). */
  record ImportView(String base, ImportReport report, String csv, String csrf) {}

  void export(Context ctx, ConsoleRoutes.Viewer v) {
    long license = deps.tenants().license(Pages.id(ctx)).id();
    StringBuilder out = new StringBuilder();
    deps.contactBook().exportCsv(license, Pages.query(ctx, "tag"), out::append);
    ctx.header("Content-Disposition", "attachment; filename=\"contacts-" + license + ".csv\"");
    ctx.contentType("text/csv; charset=utf-8").result(out.toString());
  }

  void unsubscribe(Context ctx, ConsoleRoutes.Viewer v) {
    change(ctx, true);
  }

  void resubscribe(Context ctx, ConsoleRoutes.Viewer v) {
    change(ctx, false);
  }

  void delete(Context ctx, ConsoleRoutes.Viewer v) {
    long license = deps.tenants().license(Pages.id(ctx)).id();
    deps.contactBook().delete(license, ctx.pathParam("phone"));
    Pages.seeOther(ctx, base(license));
  }

  private void change(Context ctx, boolean unsubscribed) {
    long license = deps.tenants().license(Pages.id(ctx)).id();
    deps.contactBook().setUnsubscribed(license, ctx.pathParam("phone"), unsubscribed, "console");
    Pages.seeOther(ctx, base(license));
  }

  /** The CSV of the form: the file chosen, else the text pasted. */
  private static String csvOf(Context ctx) {
    UploadedFile file = ctx.uploadedFile("file");
    if (file != null && file.size() > 0) {
      try (InputStream in = file.content()) {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new ApiException(400, "file_unreadable", "The file could not be read; try again.");
      }
    }
    return Pages.field(ctx, "csv")
        .orElseThrow(
            () -> new ApiException(400, "csv_empty", "Choose a CSV file or paste its text."));
  }

  static String base(long license) {
    return "/console/licenses/" + license + "/contacts";
  }
}
