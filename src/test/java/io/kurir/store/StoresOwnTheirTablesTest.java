package io.kurir.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Stores own their tables: every SQL statement is written in a class named {@code ...Store} (one
 * per aggregate), and only those classes, and the database layer of this package, see Jdbi. The
 * rest of the code calls a store's methods; a hook or a guard that must join the caller's commit
 * gets a {@link Transaction}, which it hands on to a store.
 */
class StoresOwnTheirTablesTest {
  private static final Path SOURCES = Path.of("src/main/java/io/kurir");

  /** What only a store may write, each with what it is. */
  private static final Map<String, Pattern> STORE_ONLY =
      Map.of(
          "Jdbi", Pattern.compile("org\\.jdbi|\\bHandle\\b|\\.jdbi\\(\\)"),
          "a statement",
              Pattern.compile(
                  "\\b(createQuery|createUpdate|prepareStatement|createBatch"
                      + "|prepareBatch)\\("),
          "a Jdbi write",
              Pattern.compile(
                  "writes\\(\\)\\s*\\.\\s*(write|submit|submitForSender|submitInBackground)\\("),
          "SQL", Pattern.compile("\"\\s*(SELECT|INSERT INTO|UPDATE|DELETE FROM|WITH RECURSIVE)\\s"),
          "a transaction opened up", Pattern.compile("Transaction\\.of\\("));

  /**
   * The database layer itself: the pool and migrations, the write queue and its transactions, the
   * instance lock, node signals and the secrets key with the one-time rewrite of every secret
   * column (a migration over several tables, not an aggregate's store).
   */
  private static final Path DATABASE_LAYER = SOURCES.resolve("store");

  @Test
  void onlyStoresWriteSqlOrSeeJdbi() throws IOException {
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(SOURCES)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
        String name = SOURCES.relativize(file).toString().replace('\\', '/');
        if (file.getFileName().toString().endsWith("Store.java")
            || file.startsWith(DATABASE_LAYER)) {
          continue;
        }
        List<String> lines = Files.readAllLines(file);
        String text = String.join("\n", lines);
        for (var rule : STORE_ONLY.entrySet()) {
          var m = rule.getValue().matcher(text);
          while (m.find()) {
            int line = (int) text.substring(0, m.start()).chars().filter(c -> c == '\n').count();
            found.add(
                name + ":" + (line + 1) + ": " + rule.getKey() + ": " + lines.get(line).strip());
          }
        }
      }
    }
    assertThat(found).as("SQL or Jdbi outside a store").isEmpty();
  }

  @Test
  void theRuleFindsWhatItLooksFor() {
    // The patterns themselves: a rule that matches nothing would pass whatever the code holds.
    assertThat(STORE_ONLY.get("SQL").matcher("h.createQuery(\"SELECT 1 FROM device\")").find())
        .isTrue();
    assertThat(STORE_ONLY.get("Jdbi").matcher("import org.jdbi.v3.core.Handle;").find()).isTrue();
    assertThat(STORE_ONLY.get("Jdbi").matcher("return db.jdbi().withHandle(h -> 1);").find())
        .isTrue();
    assertThat(STORE_ONLY.get("a Jdbi write").matcher("db.writes()\n    .write(h -> 1)").find())
        .isTrue();
    assertThat(STORE_ONLY.get("a Jdbi write").matcher("db.writes().writeIn(tx -> 1)").find())
        .isFalse();
    assertThat(STORE_ONLY.get("Jdbi").matcher("Handler handler").find()).isFalse();
  }
}
