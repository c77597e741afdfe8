package io.kurir.report;

import io.kurir.message.MessageState;
import io.kurir.store.Database;
import io.kurir.store.Dialect;
import io.kurir.store.SearchTooLong;
import io.kurir.tenant.Device;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Message reports of a device over a {@link Period}, filtered in the database by the device and
 * creation time index, optionally by a keyword in the text.
 *
 * <p>Thread-safe.
 */
public final class Reports {
  /** Rows of one report at most: the newest are kept. */
  public static final int MAX_ROWS = 10_000;

  /** Characters of text in one report at most (long texts count in full): the newest are kept. */
  public static final long MAX_TEXT_CHARS = 20_000_000;

  /**
   * One message in a report.
   *
   * @param failureReason why it failed, only while {@code state} is {@code failed}
   */
  public record Row(
      long messageId,
      String text,
      String kind,
      String recipient,
      String state,
      Optional<String> failureReason,
      Instant createdAt) {}

  /** What a report found. */
  public sealed interface Result {
    /** Messages in the period (matching the keyword, if one was given), oldest first. */
    record Found(List<Row> rows) implements Result {}

    /** The device sent nothing in the period. */
    record NoData() implements Result {}

    /** It sent something, but nothing matches the keyword. */
    record NoMatch() implements Result {}

    /**
     * The keyword is longer than {@link io.kurir.store.Dialect#MAX_SEARCH_CHARS} characters:
     * nothing was looked up.
     */
    record KeywordTooLong(int maxChars) implements Result {}
  }

  private final ReportStore store;
  private final Clock clock;
  private final ZoneId zone;

  public Reports(Database db, Clock clock, ZoneId zone) {
    this.store = new ReportStore(db);
    this.clock = clock;
    this.zone = zone;
  }

  public Result report(Device device, Period period, Optional<String> keyword) {
    long from = period.from(clock, zone).toEpochMilli();
    long to = period.to(clock, zone).toEpochMilli();
    Optional<String> stripped = keyword.map(String::strip).filter(k -> !k.isEmpty());
    if (stripped.isPresent() && SearchTooLong.isTooLong(stripped.get())) {
      return new Result.KeywordTooLong(Dialect.MAX_SEARCH_CHARS);
    }
    Optional<String> pattern = stripped.map(Dialect::containsPattern);
    List<Row> rows =
        store.newest(device.id(), from, to, pattern, MAX_ROWS, Reports::withinTextBudget);
    if (!rows.isEmpty()) {
      return new Result.Found(rows.reversed());
    }
    if (pattern.isPresent() && anyIn(device, from, to)) {
      return new Result.NoMatch();
    }
    return new Result.NoData();
  }

  /** The stored reason of a failed message; a retried one's last failure is not shown. */
  static Optional<String> failureReason(String state, String reason) {
    return MessageState.FAILED.wireName().equals(state)
        ? Optional.ofNullable(reason)
        : Optional.empty();
  }

  /**
   * The newest rows whose texts fit in {@link #MAX_TEXT_CHARS}, read one at a time so that a report
   * of long texts stops before it can exhaust memory.
   */
  private static List<Row> withinTextBudget(Stream<Row> newestFirst) {
    List<Row> kept = new ArrayList<>();
    long chars = 0;
    for (var it = newestFirst.iterator(); it.hasNext(); ) {
      Row row = it.next();
      chars += row.text().length();
      if (chars > MAX_TEXT_CHARS && !kept.isEmpty()) {
        break;
      }
      kept.add(row);
    }
    return kept;
  }

  private boolean anyIn(Device device, long from, long to) {
    return store.anyIn(device.id(), from, to);
  }
}
