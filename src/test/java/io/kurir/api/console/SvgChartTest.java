package io.kurir.api.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The chart drawn on the server: its layout (scale, ticks, points) and the SVG {@code chart.jte}
 * writes from it — accessible (title, description, the figures as a table), escaped, with no script
 * and no style attribute (the console's Content-Security-Policy would refuse either).
 */
class SvgChartTest {
  static final double PLOT_TOP = SvgChart.TOP;
  static final double PLOT_BOTTOM = SvgChart.HEIGHT - SvgChart.BOTTOM;
  static final double PLOT_LEFT = SvgChart.LEFT;
  static final double PLOT_RIGHT = SvgChart.WIDTH - SvgChart.RIGHT;

  static String render(SvgChart.Drawing d) {
    return Templates.render("chart.jte", Map.of("c", d));
  }

  static List<String> hours(int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(String.format("%02d:00", i));
    }
    return out;
  }

  @Test
  void theAxesReachTheLargestCountInRoundStepsAndLabelAtMostEightTimes() {
    List<Long> sent = new ArrayList<>();
    for (int i = 0; i < 24; i++) {
      sent.add((long) i * 3); // 0 … 69
    }
    SvgChart.Drawing d =
        SvgChart.draw("t", "Sent", "today", hours(24), List.of(new SvgChart.Series("sent", sent)));

    // 69 in four steps: steps of 20, to 80.
    assertThat(d.yTicks())
        .extracting(SvgChart.Tick::label)
        .containsExactly("0", "20", "40", "60", "80");
    assertThat(d.yTicks().getFirst().at()).isEqualTo(PLOT_BOTTOM);
    assertThat(d.yTicks().getLast().at()).isEqualTo(PLOT_TOP);
    assertThat(d.xTicks()).hasSizeLessThanOrEqualTo(SvgChart.MAX_X_LABELS);
    assertThat(d.xTicks()).extracting(SvgChart.Tick::label).startsWith("00:00", "03:00");
    assertThat(d.xTicks().getFirst().at()).isEqualTo(PLOT_LEFT);
    assertThat(d.empty()).isFalse();

    String svg = render(d);
    assertThat(svg).contains(">80</text>").contains(">00:00</text>").contains(">21:00</text>");
  }

  @Test
  void eachSeriesIsALineThroughItsCountsFromEdgeToEdgeWithItsFiguresInTheTable() {
    SvgChart.Drawing d =
        SvgChart.draw(
            "c",
            "Sends",
            "this hour",
            List.of("10:00", "10:05", "10:10"),
            List.of(
                new SvgChart.Series("sent", List.of(0L, 4L, 2L)),
                new SvgChart.Series("read", List.of(0L, 0L, 4L))));

    assertThat(d.lines()).hasSize(2);
    SvgChart.Line sent = d.lines().get(0);
    assertThat(sent.css()).isEqualTo("series-0");
    assertThat(sent.total()).isEqualTo(6);
    // Four is the top of the scale (steps of one): the second point is at the top.
    assertThat(sent.dots())
        .extracting(SvgChart.Point::x)
        .containsExactly(PLOT_LEFT, (PLOT_LEFT + PLOT_RIGHT) / 2, PLOT_RIGHT);
    assertThat(sent.dots())
        .extracting(SvgChart.Point::y)
        .containsExactly(PLOT_BOTTOM, PLOT_TOP, (PLOT_TOP + PLOT_BOTTOM) / 2);
    assertThat(sent.points()).isEqualTo("56,192 342,12 628,102");
    assertThat(d.lines().get(1).css()).isEqualTo("series-1");

    String svg = render(d);
    assertThat(svg).contains("<polyline points=\"56,192 342,12 628,102\"");
    assertThat(svg).contains("<title>sent, 10:05: 4</title>");
    assertThat(rowOf(svg, "10:10")).containsExactly("2", "4");
    assertThat(svg)
        .contains(
            "<th scope=\"col\">Time</th><th scope=\"col\">sent</th><th scope=\"col\">read</th>");
  }

  @Test
  void itIsAnImageWithATitleAndADescriptionThatSayTheTotals() {
    SvgChart.Drawing d =
        SvgChart.draw(
            "traffic",
            "Messages per hour",
            "the last 24 hours",
            List.of("09:00", "10:00"),
            List.of(new SvgChart.Series("+628111", List.of(3L, 4L))));
    String svg = render(d);
    assertThat(svg)
        .contains("role=\"img\"")
        .contains("aria-labelledby=\"traffic-title traffic-desc\"")
        .contains("<title id=\"traffic-title\">Messages per hour</title>")
        .contains(
            "<desc id=\"traffic-desc\">Messages per hour, the last 24 hours: +628111 7 in all.</desc>")
        .contains("data-testid=\"traffic-figures\"");
    assertThat(svg).doesNotContain("<script").doesNotContain("style=").doesNotContain("http://e");
  }

  @Test
  void noDataStillDrawsTheAxesAndSaysThereIsNothing() {
    SvgChart.Drawing zeros =
        SvgChart.draw(
            "e",
            "Sends",
            "today",
            hours(3),
            List.of(new SvgChart.Series("sent", List.of(0L, 0L, 0L))));
    assertThat(zeros.empty()).isTrue();
    assertThat(zeros.yTicks())
        .extracting(SvgChart.Tick::label)
        .containsExactly("0", "1", "2", "3", "4");
    assertThat(zeros.lines().getFirst().points()).isEqualTo("56,192 342,192 628,192");
    assertThat(render(zeros)).contains("Nothing yet in this period.");

    SvgChart.Drawing noSeries = SvgChart.draw("n", "Sends", "today", hours(24), List.of());
    assertThat(noSeries.empty()).isTrue();
    assertThat(noSeries.lines()).isEmpty();
    assertThat(noSeries.desc()).isEqualTo("Sends, today: nothing to show.");
    assertThat(render(noSeries)).contains("Nothing yet in this period.").contains(">23:00</th>");

    SvgChart.Drawing noBuckets = SvgChart.draw("b", "Sends", "today", List.of(), List.of());
    assertThat(noBuckets.xTicks()).isEmpty();
    assertThat(render(noBuckets)).contains("<svg");
  }

  @Test
  void onePointStandsInTheMiddleAsADot() {
    SvgChart.Drawing d =
        SvgChart.draw(
            "one",
            "Sends",
            "now",
            List.of("10:00"),
            List.of(new SvgChart.Series("sent", List.of(5L))));
    SvgChart.Line line = d.lines().getFirst();
    assertThat(line.dots()).hasSize(1);
    assertThat(line.dots().getFirst().x()).isEqualTo((PLOT_LEFT + PLOT_RIGHT) / 2);
    assertThat(d.xTicks())
        .extracting(SvgChart.Tick::at)
        .containsExactly((PLOT_LEFT + PLOT_RIGHT) / 2);
    // Five in four steps: steps of 2, to 8.
    assertThat(d.yTicks().getLast().label()).isEqualTo("8");
    assertThat(render(d)).contains("<circle cx=\"342\" cy=\"79.5\" r=\"2.5\">");
  }

  @Test
  void hugeCountsAreShortenedOnTheAxisAndStayInsideThePlot() {
    long[] huge = {1_234_567_890_123L, Long.MAX_VALUE / 2, 0L};
    for (long max : huge) {
      SvgChart.Drawing d =
          SvgChart.draw(
              "h",
              "Sends",
              "a year",
              List.of("a", "b"),
              List.of(new SvgChart.Series("sent", List.of(max, 7L))));
      for (SvgChart.Point p : d.lines().getFirst().dots()) {
        assertThat(p.y()).isBetween(PLOT_TOP, PLOT_BOTTOM);
      }
      String svg = render(d);
      assertThat(svg)
          .doesNotContainPattern("\\d[eE][+-]?\\d")
          .doesNotContain("NaN")
          .doesNotContain("Infinity");
    }
    SvgChart.Drawing d =
        SvgChart.draw(
            "h",
            "Sends",
            "a year",
            List.of("a"),
            List.of(new SvgChart.Series("sent", List.of(1_000_000L))));
    assertThat(d.yTicks())
        .extracting(SvgChart.Tick::label)
        .containsExactly("0", "250k", "500k", "750k", "1M");
    // The table keeps every digit.
    assertThat(render(d)).contains(">1000000</td>");
    assertThat(SvgChart.count(9_999)).isEqualTo("9999");
    assertThat(SvgChart.count(12_500)).isEqualTo("12.5k");
    assertThat(SvgChart.count(3_500_000)).isEqualTo("3.5M");
    assertThat(SvgChart.count(Long.MAX_VALUE)).isEqualTo("9.2E");
  }

  @Test
  void namesAndLabelsAreEscaped() {
    String svg =
        render(
            SvgChart.draw(
                "x",
                "A <b>chart</b>",
                "\"now\"",
                List.of("<i>10:00</i>"),
                List.of(new SvgChart.Series("<script>alert(1)</script>", List.of(1L)))));
    assertThat(svg).doesNotContain("<script>").doesNotContain("<b>").doesNotContain("<i>");
    assertThat(svg)
        .contains("&lt;script&gt;alert(1)&lt;/script&gt;")
        .contains("A &lt;b&gt;chart&lt;/b&gt;");
  }

  @Test
  void aSeriesWithoutACountPerBucketIsRefused() {
    assertThatThrownBy(
            () ->
                SvgChart.draw(
                    "x", "t", "p", hours(3), List.of(new SvgChart.Series("s", List.of(1L)))))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /** The counts of the figures' row for {@code label}. */
  static List<String> rowOf(String html, String label) {
    Matcher row =
        Pattern.compile("<tr><th scope=\"row\">" + Pattern.quote(label) + "</th>(.*?)</tr>")
            .matcher(html);
    assertThat(row.find()).as("a row for " + label).isTrue();
    List<String> cells = new ArrayList<>();
    Matcher cell = Pattern.compile("<td[^>]*>([^<]*)</td>").matcher(row.group(1));
    while (cell.find()) {
      cells.add(cell.group(1));
    }
    return cells;
  }
}
