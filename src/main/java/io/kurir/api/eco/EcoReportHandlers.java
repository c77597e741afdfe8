package io.kurir.api.eco;

import io.javalin.http.Context;
import io.kurir.api.eco.EcoRoutes.EcoRequest;
import io.kurir.report.Period;
import io.kurir.report.Reports;
import io.kurir.time.Timestamps;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code /api/report_json}: a device's messages over a period, in the contract's row shape, and
 * {@code reason} on a {@code failed} row (a field the contract does not list; JSON clients ignore
 * it). A {@code keyword} longer than 1,000 characters answers 400 in the same failure shape, {@code
 * keyword_too_long}.
 */
public final class EcoReportHandlers {
  private final Reports reports;
  private final Timestamps timestamps;

  public EcoReportHandlers(Reports reports, Timestamps timestamps) {
    this.reports = reports;
    this.timestamps = timestamps;
  }

  void reportJson(Context ctx, EcoRequest req) {
    Optional<Period> period = req.fields().text("time_choose").flatMap(Period::ofWireName);
    if (period.isEmpty()) {
      ctx.json(failed("wrong_time_choose"));
      return;
    }
    switch (reports.report(req.device(), period.get(), req.fields().text("keyword"))) {
      case Reports.Result.NoData none -> ctx.json(failed("no_data"));
      case Reports.Result.NoMatch none -> ctx.json(failed("not_exists"));
      // A refused request, not an outcome: a 4xx, in the report's own failure shape.
      case Reports.Result.KeywordTooLong tooLong ->
          ctx.status(400).json(failed("keyword_too_long"));
      case Reports.Result.Found found -> {
        List<Map<String, Object>> data = new ArrayList<>();
        for (Reports.Row row : found.rows()) {
          Map<String, Object> r = new LinkedHashMap<>();
          r.put("isi_pesan", row.text());
          r.put("message_id", Long.toString(row.messageId()));
          r.put("message_type", row.kind());
          r.put("penerima", row.recipient());
          r.put("status", row.state());
          r.put("tanggal", timestamps.reply(row.createdAt()));
          row.failureReason().ifPresent(reason -> r.put("reason", reason)); // only when failed
          data.add(r);
        }
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("status", EcoResults.STATUS_SUCCESS);
        reply.put("message", EcoResults.SUCCESS);
        reply.put("data", data);
        ctx.json(reply);
      }
    }
  }

  private static Map<String, Object> failed(String message) {
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("status", EcoResults.STATUS_FAILED);
    reply.put("message", message);
    reply.put("data", List.of());
    return reply;
  }
}
