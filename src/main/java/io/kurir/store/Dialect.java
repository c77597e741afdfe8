package io.kurir.store;

import com.zaxxer.hikari.HikariConfig;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;

/**
 * The one place where SQLite and PostgreSQL differ. Stores write portable SQL and ask the dialect
 * for the few pieces that cannot be portable; each engine has its own migration folder, because the
 * SQLite migrations are frozen by the checksums that installed databases hold.
 *
 * <p>Implementations are stateless and thread-safe.
 */
public interface Dialect {

  String name();

  /** Flyway's location of this engine's migrations. */
  String migrationLocation();

  /** Flyway placeholders used by migrations, such as {@code ${id_pk}}. */
  Map<String, String> migrationPlaceholders();

  /**
   * Checks made before the pool opens (a SQLite file that is empty or locked by another process)
   * and the pool's connection set-up: the data source, its size and per-connection settings.
   */
  void configurePool(HikariConfig config, DatabaseLocation location);

  /**
   * Whether only this process writes. SQLite allows one writer and the {@link InstanceLock} keeps
   * other gateways out, so a gateway may trust what it remembers of its own writes; on PostgreSQL
   * other nodes write too.
   */
  boolean singleWriter();

  /**
   * The lock that keeps a second gateway off this database (SQLite: a file lock), or a second
   * gateway with the same {@code nodeId} (PostgreSQL: an advisory lock).
   */
  InstanceLock lockInstance(DatabaseLocation location, int nodeId);

  /**
   * Whether {@code e} says that another connection holds a lock this write needs, so that trying
   * again later may succeed (SQLite's BUSY and LOCKED; PostgreSQL's serialization failure, deadlock
   * and lock timeout).
   */
  boolean isBusy(SQLException e);

  /** Whether {@code e} says that the connection itself is gone (the server restarted, a cut). */
  boolean isConnectionLost(SQLException e);

  /**
   * The column that orders the rows of an event table ({@code message_event}, {@code device_event})
   * in insertion order, for rows with the same time: SQLite's implicit {@code rowid}; PostgreSQL's
   * identity column {@code id}.
   */
  String insertionOrder();

  /**
   * A condition on a row of {@code message} (named so in the query, without an alias) that its
   * body, lower-cased the Unicode way, is {@code LIKE} the named parameter {@code :param} (a
   * pattern already lower-cased with {@code Locale.ROOT}, escaped with {@code !}). SQLite's own
   * {@code lower} folds ASCII only, so Kurir gives it a Java one; PostgreSQL looks in {@code
   * message_text}, where the trigram index is.
   */
  String bodyLike(String param);

  /**
   * The longest text a search may look for, in characters (code points): longer ones are refused
   * before they reach the database, where SQLite fails a {@code LIKE} pattern of some 50,000 bytes
   * ("pattern too complex") and PostgreSQL would scan with it all the same.
   */
  int MAX_SEARCH_CHARS = 1_000;

  /**
   * A {@link #bodyLike} pattern that matches {@code text} literally anywhere, in any case.
   *
   * @throws SearchTooLong when {@code text} is longer than {@link #MAX_SEARCH_CHARS}: no unbounded
   *     pattern ever reaches the database, whichever search asks
   */
  static String containsPattern(String text) {
    SearchTooLong.check(text);
    String escaped =
        text.toLowerCase(java.util.Locale.ROOT)
            .replace("!", "!!")
            .replace("%", "!%")
            .replace("_", "!_");
    return "%" + escaped + "%";
  }

  /**
   * What a subquery that picks rows to claim ends with, so that a row another transaction holds is
   * passed over rather than waited for: PostgreSQL's {@code FOR UPDATE SKIP LOCKED}; nothing on
   * SQLite, whose one writer holds no row locks.
   */
  String skipLocked();

  /**
   * Runs {@code onlyWrite}, the whole of a transaction that has sent the database nothing yet, so
   * that it commits as it runs: on PostgreSQL its statements and their commit go in one round trip
   * instead of two (an implicit transaction, ended by the driver's one sync). False, having run
   * nothing, where the transaction already sent something or the dialect gains nothing (SQLite runs
   * in the process). {@code onlyWrite} must be few enough statements for the driver to send them
   * before one sync (see {@link WriteQueue.AllOrNothing#commitsAsItStores}).
   */
  default boolean commitAsItRuns(java.sql.Connection connection, LastWrite onlyWrite)
      throws Exception {
    return false;
  }

  /** The statements of {@link #commitAsItRuns}. */
  @FunctionalInterface
  interface LastWrite {
    void run() throws Exception;
  }

  /**
   * The file that opening {@code location} would create because it does not exist yet; empty when
   * the database exists or Kurir never creates it (a PostgreSQL database is the operator's to
   * create). {@code ./kurir admin} refuses to create one unasked.
   */
  default Optional<Path> fileToCreate(DatabaseLocation location) {
    return Optional.empty();
  }

  static Dialect forUrl(String jdbcUrl) {
    if (jdbcUrl.startsWith("jdbc:sqlite:")) {
      return new SqliteDialect();
    }
    if (jdbcUrl.startsWith("jdbc:postgresql:")) {
      return new PostgresDialect();
    }
    throw new IllegalArgumentException(
        "no dialect for " + jdbcUrl + ": Kurir stores data in SQLite or PostgreSQL");
  }

  /**
   * Whether {@code e} or one of its causes is an {@link SQLException} that {@code test} accepts.
   */
  static boolean anyCause(Throwable e, java.util.function.Predicate<SQLException> test) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && test.test(sql)) {
        return true;
      }
    }
    return false;
  }
}
