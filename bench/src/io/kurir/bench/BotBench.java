package io.kurir.bench;

import io.kurir.bench.Bench.Row;
import io.kurir.bot.BotMatcher;
import io.kurir.bot.BotRule;
import io.kurir.bot.MatchType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * Keyword matching of one license with 10,000 rules (a third of each type, 100,000 keyword
 * characters: the limits), over 200,000 incoming texts of 20 to 300 characters.
 */
final class BotBench {
  private static final int RULES = 10_000;
  private static final int TEXTS = 200_000;

  private final List<Row> rows;

  BotBench(List<Row> rows) {
    this.rows = rows;
  }

  void run() {
    System.out.println("kurir bench: keyword matching, 10,000 rules");
    Random random = new Random(3);
    String[] words = new String[2_000];
    for (int i = 0; i < words.length; i++) {
      words[i] = word(random, 3 + random.nextInt(7));
    }
    List<BotRule> rules = new ArrayList<>(RULES);
    for (int i = 0; i < RULES; i++) {
      String keyword = words[random.nextInt(words.length)] + " " + (i % 100);
      MatchType type = MatchType.values()[i % 3];
      rules.add(
          new BotRule(
              i + 1, 1, keyword, BotMatcher.normalize(keyword), type, "reply " + i, Instant.EPOCH));
    }
    long buildStart = System.nanoTime();
    BotMatcher matcher = new BotMatcher(rules);
    double buildMs = (System.nanoTime() - buildStart) / 1e6;
    String[] texts = new String[TEXTS];
    for (int i = 0; i < TEXTS; i++) {
      StringBuilder t = new StringBuilder();
      int length = 20 + random.nextInt(280);
      while (t.length() < length) {
        t.append(words[random.nextInt(words.length)]).append(' ');
        if (random.nextInt(10) == 0) {
          t.append(random.nextInt(100)).append(' ');
        }
      }
      texts[i] = t.toString();
    }
    int matched = 0;
    for (int i = 0; i < 20_000; i++) { // warm-up
      matched += matcher.match(texts[i]).isPresent() ? 1 : 0;
    }
    long[] nanos = new long[TEXTS];
    matched = 0;
    for (int i = 0; i < TEXTS; i++) {
      long t = System.nanoTime();
      matched += matcher.match(texts[i]).isPresent() ? 1 : 0;
      nanos[i] = System.nanoTime() - t;
    }
    Arrays.sort(nanos);
    rows.add(
        new Row(
            "keyword matching, 10,000 rules",
            String.format(Locale.ROOT, "%.1f µs median", nanos[TEXTS / 2] / 1e3),
            Double.NaN,
            String.format(Locale.ROOT, "%.1f µs", nanos[TEXTS / 2] / 1e3),
            String.format(Locale.ROOT, "%.1f µs", nanos[(int) (TEXTS * 0.99)] / 1e3),
            String.format(
                Locale.ROOT,
                "one license's matcher (built in %.0f ms), %,d texts of 20-300 characters, %,d"
                    + " matched a rule",
                buildMs,
                TEXTS,
                matched)));
  }

  private static String word(Random random, int length) {
    StringBuilder w = new StringBuilder();
    for (int i = 0; i < length; i++) {
      w.append((char) ('a' + random.nextInt(26)));
    }
    return w.toString();
  }
}
