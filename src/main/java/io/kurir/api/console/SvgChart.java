package io.kurir.api.console;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A line chart of counts over time, drawn on the server: this class lays it out (the scale, the
 * ticks, each series' points) and {@code chart.jte} writes it as inline SVG, so that the console
 * loads no script and no file from elsewhere (its Content-Security-Policy holds) and every label is
 * escaped as any template output is. Colours come from the stylesheet by class ({@code series-0}
 * …), never from a {@code style} attribute, which that policy would refuse.
 *
 * <p>Accessible: the SVG is an image whose {@code <title>} and {@code <desc>} say what it shows,
 * and the figures themselves are a table under it, for screen readers and for anyone who wants the
 * numbers.
 */
final class SvgChart {
  static final int WIDTH = 640;
  static final int HEIGHT = 220;
  static final int LEFT = 56;
  static final int RIGHT = 12;
  static final int TOP = 12;
  static final int BOTTOM = 28;

  /** At most this many labels under the x axis; the others are in the table. */
  static final int MAX_X_LABELS = 8;

  /** Lines on the y axis above zero. */
  static final int Y_STEPS = 4;

  private SvgChart() {}

  /** A named line: one count per bucket. */
  record Series(String name, List<Long> values) {
    Series {
      values = List.copyOf(values);
    }

    long total() {
      return values.stream().mapToLong(Long::longValue).sum();
    }
  }

  /** A tick of an axis: where (in the drawing's units) and what it says. */
  record Tick(double at, String label) {}

  /** A series as drawn: its name, its class ({@code series-n}), its points and their values. */
  record Line(String name, String css, String points, List<Point> dots, long total) {}

  /** A point of a line, with the count it stands for (its tooltip). */
  record Point(double x, double y, String label) {}

  /** A row of the figures' table: the bucket's label and each series' count in it. */
  record Row(String label, List<String> counts) {}

  /**
   * The chart as {@code chart.jte} writes it.
   *
   * @param id unique on its page: the ids of the title and the description derive from it
   * @param title what it shows, in a few words (the SVG's title, the figure's caption)
   * @param desc the same in a sentence, with the period and the totals (the SVG's description)
   * @param empty whether there is nothing to draw (every count zero, or no bucket): the drawing is
   *     then the axes alone, and the page says so
   */
  record Drawing(
      String id,
      String title,
      String desc,
      int width,
      int height,
      int left,
      int right,
      int top,
      int bottom,
      List<Tick> xTicks,
      List<Tick> yTicks,
      List<Line> lines,
      List<String> columns,
      List<Row> rows,
      boolean empty) {}

  /**
   * Lays out {@code series} over the buckets named by {@code labels} (oldest first).
   *
   * @throws IllegalArgumentException when a series does not have one count per bucket
   */
  static Drawing draw(
      String id, String title, String period, List<String> labels, List<Series> series) {
    for (Series s : series) {
      if (s.values().size() != labels.size()) {
        throw new IllegalArgumentException(
            "series " + s.name() + " has " + s.values().size() + " counts for " + labels.size());
      }
    }
    long max = 0;
    for (Series s : series) {
      for (long v : s.values()) {
        max = Math.max(max, v);
      }
    }
    long step = niceStep(max);
    double top = (double) step * Y_STEPS;
    double plotWidth = WIDTH - LEFT - RIGHT;
    double plotHeight = HEIGHT - TOP - BOTTOM;
    int n = labels.size();
    List<Tick> yTicks = new ArrayList<>();
    for (int i = 0; i <= Y_STEPS; i++) {
      yTicks.add(new Tick(round(TOP + plotHeight - plotHeight * i / Y_STEPS), count(step * i)));
    }
    List<Tick> xTicks = new ArrayList<>();
    int every = Math.max(1, (int) Math.ceil(n / (double) MAX_X_LABELS));
    for (int i = 0; i < n; i += every) {
      xTicks.add(new Tick(x(i, n, plotWidth), labels.get(i)));
    }
    List<Line> lines = new ArrayList<>();
    for (int k = 0; k < series.size(); k++) {
      Series s = series.get(k);
      StringBuilder points = new StringBuilder();
      List<Point> dots = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        double px = x(i, n, plotWidth);
        double py = round(TOP + plotHeight - plotHeight * (s.values().get(i) / top));
        if (i > 0) {
          points.append(' ');
        }
        points.append(number(px)).append(',').append(number(py));
        dots.add(new Point(px, py, s.name() + ", " + labels.get(i) + ": " + s.values().get(i)));
      }
      lines.add(new Line(s.name(), "series-" + (k % 8), points.toString(), dots, s.total()));
    }
    List<String> columns = new ArrayList<>();
    columns.add("Time");
    series.forEach(s -> columns.add(s.name()));
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      List<String> counts = new ArrayList<>();
      for (Series s : series) {
        counts.add(Long.toString(s.values().get(i)));
      }
      rows.add(new Row(labels.get(i), counts));
    }
    StringBuilder desc = new StringBuilder(title).append(", ").append(period).append(": ");
    if (series.isEmpty()) {
      desc.append("nothing to show.");
    } else {
      for (int k = 0; k < series.size(); k++) {
        desc.append(k == 0 ? "" : ", ")
            .append(series.get(k).name())
            .append(' ')
            .append(series.get(k).total());
      }
      desc.append(" in all.");
    }
    return new Drawing(
        id,
        title,
        desc.toString(),
        WIDTH,
        HEIGHT,
        LEFT,
        RIGHT,
        TOP,
        BOTTOM,
        xTicks,
        yTicks,
        lines,
        columns,
        rows,
        max == 0);
  }

  /**
   * The y axis's step: 1, 2, 2.5 or 5 times a power of ten, so that {@link #Y_STEPS} steps reach
   * {@code max} (at least 1: an empty chart still has an axis).
   */
  static long niceStep(long max) {
    if (max <= Y_STEPS) {
      return 1;
    }
    double raw = max / (double) Y_STEPS;
    double power = Math.pow(10, Math.floor(Math.log10(raw)));
    for (double m : new double[] {1, 2, 2.5, 5, 10}) {
      if (m == 2.5 && power < 10) {
        continue; // a step of 2.5 only where it is a whole number
      }
      double step = m * power;
      if (step >= raw) {
        // Counts beyond what a double holds exactly do not occur; a long caps the scale.
        return step >= Long.MAX_VALUE / Y_STEPS ? Long.MAX_VALUE / Y_STEPS : (long) Math.ceil(step);
      }
    }
    return (long) Math.ceil(10 * power);
  }

  /** A count as the y axis shows it: as it is below ten thousand, else shortened (12k, 3.5M). */
  static String count(long n) {
    if (n < 10_000) {
      return Long.toString(n);
    }
    String[] units = {"k", "M", "G", "T", "P", "E"};
    double v = n;
    int u = -1;
    while (v >= 1000 && u < units.length - 1) {
      v /= 1000;
      u++;
    }
    String digits =
        v >= 100 || v == Math.floor(v)
            ? Long.toString(Math.round(v))
            : String.format(Locale.ROOT, "%.1f", v);
    return digits + units[u];
  }

  private static double x(int i, int n, double plotWidth) {
    // One bucket stands in the middle; more spread from edge to edge.
    return round(n == 1 ? LEFT + plotWidth / 2 : LEFT + plotWidth * i / (n - 1));
  }

  private static double round(double v) {
    return Math.round(v * 10) / 10.0;
  }

  /** A coordinate as SVG reads it: no exponent, a dot for decimals, whatever the locale. */
  static String number(double v) {
    return v == Math.floor(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
  }
}
