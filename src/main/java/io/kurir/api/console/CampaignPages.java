package io.kurir.api.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.campaign.Campaign;
import io.kurir.campaign.CampaignDraft;
import io.kurir.campaign.CampaignStatus;
import io.kurir.campaign.CampaignTimeline;
import io.kurir.campaign.Campaigns;
import io.kurir.campaign.QuietHours;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Campaigns in the console: every license's for operators ({@code /console/campaigns}), a license's
 * with the form that makes one ({@code /console/licenses/{id}/campaigns}; for a customer, their own
 * at {@code /console/my/campaigns}), and a campaign's page: its progress bar, its counts, a chart
 * of its sends and outcomes over time, why it paused if it paused by itself, the buttons that
 * start, pause, resume and cancel it, and its report as CSV. Everything goes through {@link
 * Campaigns}, as Kurir's API does.
 */
final class CampaignPages {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A line on its own between two versions of the message in the variants field. */
  static final String VARIANT_SEPARATOR = "---";

  /** A campaign's chart has at most this many buckets: the widest that keeps to it is chosen. */
  static final int MAX_BUCKETS = 48;

  private static final List<Duration> WIDTHS =
      List.of(
          Duration.ofMinutes(1),
          Duration.ofMinutes(5),
          Duration.ofMinutes(15),
          Duration.ofHours(1),
          Duration.ofHours(3),
          Duration.ofHours(6),
          Duration.ofDays(1),
          Duration.ofDays(7));

  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm");
  private static final DateTimeFormatter DAY_TIME = DateTimeFormatter.ofPattern("d MMM HH:mm");

  private final ConsoleDeps deps;

  CampaignPages(ConsoleDeps deps) {
    this.deps = deps;
  }

  /**
   * Who looks at a license's campaigns: an operator (any license, by the path's id) or a customer
   * (their own license, whatever the path says).
   */
  record Side(boolean operator) {
    long license(Context ctx, ConsoleRoutes.Viewer v, ConsoleDeps deps) {
      return operator ? deps.tenants().license(Pages.id(ctx)).id() : v.licenseId();
    }

    String base(long license) {
      return operator ? "/console/licenses/" + license + "/campaigns" : "/console/my/campaigns";
    }

    void page(Context ctx, ConsoleRoutes.Viewer v, String title, String template, Object view) {
      if (operator) {
        Pages.operator(ctx, v, title, template, view);
      } else {
        Pages.customer(ctx, v, title, template, view);
      }
    }
  }

  static final Side OPERATOR = new Side(true);
  static final Side CUSTOMER = new Side(false);

  /** A campaign in a list: its page, its license, name, status and progress. */
  record Row(
      String href,
      String license,
      String name,
      String status,
      long done,
      long total,
      int percent) {}

  /** A device the form offers for the pool. */
  record DeviceOption(long id, String number, boolean disabled) {}

  /**
   * A list of campaigns; with {@code form} (the action of the form that makes one, empty: none) and
   * what its fields show.
   */
  record ListView(
      List<Row> rows,
      boolean licenseColumn,
      String form,
      List<DeviceOption> devices,
      Map<String, String> typed,
      boolean quiet,
      String contactsHref,
      String csrf,
      Pages.Zone zone) {}

  /**
   * Every license's campaigns, the newest {@link #LISTED} first, for operators (each row counts its
   * recipients, so the list is kept short; a license's page lists the others).
   */
  void all(Context ctx, ConsoleRoutes.Viewer v) {
    Map<Long, String> licenses = Pages.licenseNames(deps);
    List<Campaign> newest = new ArrayList<>();
    licenses.keySet().forEach(l -> newest.addAll(deps.campaigns().list(l)));
    newest.sort(java.util.Comparator.comparingLong(Campaign::id).reversed());
    List<Row> rows = new ArrayList<>();
    newest.stream()
        .limit(LISTED)
        .forEach(
            c ->
                rows.add(
                    row(
                        c,
                        licenses.getOrDefault(c.licenseId(), ""),
                        OPERATOR.base(c.licenseId()) + "/" + c.id())));
    ListView view =
        new ListView(rows, true, "", List.of(), Map.of(), true, "", v.csrf(), Pages.zone(deps));
    Pages.operator(ctx, v, "Campaigns", "campaigns.jte", view);
  }

  /** How many campaigns a list shows. */
  static final int LISTED = 100;

  /** A license's campaigns and the form that makes one. */
  void list(Context ctx, ConsoleRoutes.Viewer v, Side side) {
    License l = deps.tenants().license(side.license(ctx, v, deps));
    String base = side.base(l.id());
    List<Row> rows = new ArrayList<>();
    deps.campaigns().list(l.id()).stream()
        .limit(LISTED)
        .forEach(c -> rows.add(row(c, l.name(), base + "/" + c.id())));
    List<DeviceOption> devices = options(deps.tenants().devicesOf(l));
    Map<String, String> typed = new java.util.HashMap<>();
    for (String field :
        List.of(
            "name", "tags", "text", "variants", "image", "start_at", "quiet_from", "quiet_to")) {
      typed.put(field, Pages.typed(ctx, base, field, defaultOf(field)));
    }
    boolean refused = ctx.attribute(Pages.PROBLEM) != null && ctx.path().equals(base);
    ListView view =
        new ListView(
            rows,
            false,
            base,
            devices,
            typed,
            !refused || ctx.formParam("quiet") != null,
            side.operator() ? ContactPages.base(l.id()) : "",
            v.csrf(),
            Pages.zone(deps));
    side.page(ctx, v, "Campaigns of " + l.name(), "campaigns.jte", view);
  }

  private static String defaultOf(String field) {
    return switch (field) {
      case "quiet_from" -> "21:00";
      case "quiet_to" -> "06:00";
      default -> "";
    };
  }

  private Row row(Campaign c, String license, String href) {
    Campaign.Counts n =
        c.status() == CampaignStatus.DRAFT ? null : deps.campaigns().counts(c.licenseId(), c.id());
    long total = n == null ? 0 : n.total();
    long done = n == null ? 0 : done(n);
    return new Row(
        href, license, c.name(), c.status().wireName(), done, total, percent(done, total));
  }

  /** Recipients whose turn is over: neither waiting nor queued. */
  private static long done(Campaign.Counts n) {
    return n.total() - n.waiting() - n.queued();
  }

  private static int percent(long done, long total) {
    return total == 0 ? 0 : (int) (done * 100 / total);
  }

  /** The form's campaign, made as a draft; then its page. */
  void create(Context ctx, ConsoleRoutes.Viewer v, Side side) {
    long license = side.license(ctx, v, deps);
    String text = Pages.required(ctx, "text", "the message");
    Optional<String> image = Pages.field(ctx, "image");
    if (image.isPresent() && !isWebAddress(image.get())) {
      // Said in the form's words: the message's own check names the API's field (image.link).
      throw new ApiException(
          400,
          "image_link_not_valid",
          "Image link is a web address starting with https:// (or http://), such as"
              + " https://example.com/promo.jpg.");
    }
    List<ObjectNode> variants = new ArrayList<>();
    for (String variant :
        Pages.field(ctx, "variants").orElse("").split("(?m)^\\s*" + VARIANT_SEPARATOR + "\\s*$")) {
      if (!variant.isBlank()) {
        variants.add(message(variant.strip(), image));
      }
    }
    Optional<Instant> startAt =
        Pages.field(ctx, "start_at")
            .map(
                raw ->
                    deps.timestamps()
                        .parseLocal(raw)
                        .orElseThrow(
                            () ->
                                new ApiException(
                                    400,
                                    "start_at_not_valid",
                                    "Start time is a date and a time, e.g. 2026-03-10 09:00.")));
    Optional<QuietHours> quiet = Optional.empty();
    if (ctx.formParam("quiet") != null) {
      try {
        quiet =
            Optional.of(
                new QuietHours(
                    LocalTime.parse(Pages.required(ctx, "quiet_from", "when quiet hours start")),
                    LocalTime.parse(Pages.required(ctx, "quiet_to", "when they end"))));
      } catch (DateTimeParseException | IllegalArgumentException e) {
        throw new ApiException(
            400,
            "quiet_hours_not_valid",
            "Quiet hours are two different times, e.g. from 21:00 to 06:00.");
      }
    }
    List<String> tags =
        Arrays.stream(Pages.required(ctx, "tags", "the audience's tags").split("[,;]"))
            .map(String::strip)
            .filter(t -> !t.isEmpty())
            .toList();
    Campaign c =
        deps.campaigns()
            .create(
                license,
                new CampaignDraft(
                    Pages.required(ctx, "name", "the campaign's name"),
                    tags,
                    message(text, image),
                    variants,
                    ctx.formParams("device"),
                    startAt,
                    quiet,
                    // The form has no template yet: a pool with a Cloud API number is refused
                    // (template_required) and the API takes one.
                    Optional.empty()));
    Pages.seeOther(ctx, side.base(license) + "/" + c.id());
  }

  /** The license's devices enabled now, by number, as a pool of every device has them. */
  private static String enabledNow(List<Device> devices) {
    List<String> enabled = devices.stream().filter(d -> !d.disabled()).map(Device::number).toList();
    return enabled.isEmpty()
        ? " (none is enabled now)"
        : " (now " + String.join(", ", enabled) + ")";
  }

  private static boolean isWebAddress(String link) {
    try {
      java.net.URI u = new java.net.URI(link);
      return ("https".equalsIgnoreCase(u.getScheme()) || "http".equalsIgnoreCase(u.getScheme()))
          && u.getHost() != null;
    } catch (java.net.URISyntaxException e) {
      return false;
    }
  }

  /** A text message, or an image with the text as its caption when a link is given. */
  private static ObjectNode message(String text, Optional<String> image) {
    ObjectNode m = JSON.createObjectNode();
    if (image.isPresent()) {
      m.put("type", "image");
      m.putObject("image").put("link", image.get()).put("caption", text);
    } else {
      m.put("type", "text");
      m.putObject("text").put("body", text);
    }
    return m;
  }

  /**
   * What each reason a campaign paused itself for means, and what the operator does next (the table
   * in docs/campaigns.md, "Automatic stop on ban signals", in short).
   */
  private static final Map<String, String> STOP_ADVICE =
      Map.of(
          "failure_surge",
          "Most of its last messages on one number failed: the number may be restricted. Read the"
              + " report's reasons, rest the number a day or more, then resume.",
          "account_error",
          "The network refused a number's account (locked, blocked, or an expired token). Fix the"
              + " account, retry the device, then resume.",
          "message_capped",
          "WhatsApp capped a number's new chats for this cycle. Wait for the cycle's end or leave"
              + " the number out of the pool, then resume.",
          "reach_out_locked",
          "WhatsApp stopped a number from starting new chats for a while. Wait until the lock ends"
              + " (the device's history says when), then resume.",
          "no_usable_device",
          "No number of its pool can send (disabled, expired or logged out). Fix or link one again,"
              + " then resume.");

  /** Why a running campaign sends nothing now, in words, with when it goes on. */
  private static String waitingSentence(String reason, String until) {
    return switch (reason) {
      case "daily_cap" ->
          "Waiting: every number of its pool has sent its share for today; it goes on at "
              + until
              + ".";
      case "unanswered" ->
          "Waiting: most of its recent messages got no reply, so its numbers slow down; the next"
              + " goes at "
              + until
              + ".";
      case "quiet_hours" -> "Waiting for the end of the quiet hours at " + until + ".";
      default -> "Waiting (" + reason + ") until " + until + ".";
    };
  }

  /** A campaign's page. */
  record View(
      String base,
      String list,
      String name,
      String status,
      String license,
      String stopReason,
      String stopAdvice,
      String waiting,
      String audience,
      String message,
      int variants,
      String devices,
      String startAt,
      String quietHours,
      String started,
      String finished,
      Campaign.Counts counts,
      long done,
      int percent,
      List<String> actions,
      Optional<SvgChart.Drawing> chart,
      String csrf,
      Pages.Zone zone) {}

  void show(Context ctx, ConsoleRoutes.Viewer v, Side side) {
    long license = side.license(ctx, v, deps);
    Campaign c = deps.campaigns().get(license, Pages.id(ctx, "campaign"));
    Campaign.Counts n = deps.campaigns().counts(license, c.id());
    Map<Long, String> numbers = Pages.deviceNumbers(deps);
    String base = side.base(license);
    View view =
        new View(
            base + "/" + c.id(),
            base,
            c.name(),
            c.status().wireName(),
            deps.tenants().license(license).name(),
            c.status() == CampaignStatus.PAUSED ? c.stopReason().orElse("") : "",
            c.status() == CampaignStatus.PAUSED
                ? c.stopReason().map(r -> STOP_ADVICE.getOrDefault(r, "")).orElse("")
                : "",
            c.status() == CampaignStatus.RUNNING
                ? c.waiting().map(w -> waitingSentence(w.reason(), local(w.until()))).orElse("")
                : "",
            c.list()
                ? "uploaded list ("
                    + c.listRows().map(rows -> rows + " contacts").orElse("none uploaded yet")
                    + ")"
                : "contacts tagged " + String.join(", ", c.tags()),
            text(c.message()),
            c.variants().size(),
            c.devices().isEmpty()
                ? "every enabled device of the license"
                    + enabledNow(deps.tenants().devicesOf(deps.tenants().license(license)))
                : String.join(
                    ", ", c.devices().stream().map(d -> numbers.getOrDefault(d, "#" + d)).toList()),
            c.startAt().map(this::local).orElse("when started"),
            c.quietHours()
                .map(q -> "no sends from " + q.from() + " to " + q.to())
                .orElse("none: it sends at any hour"),
            c.startedAt().map(this::local).orElse(""),
            c.finishedAt().map(this::local).orElse(""),
            n,
            done(n),
            percent(done(n), n.total()),
            actions(c.status()),
            chart(c),
            v.csrf(),
            Pages.zone(deps));
    side.page(ctx, v, "Campaign " + c.name(), "campaign.jte", view);
  }

  /** What the buttons of a campaign in {@code status} may do. */
  static List<String> actions(CampaignStatus status) {
    return switch (status) {
      case DRAFT -> List.of("start", "cancel");
      case SCHEDULED, RUNNING -> List.of("pause", "cancel");
      case PAUSED -> List.of("resume", "cancel");
      case DONE, CANCELLED -> List.of();
    };
  }

  /** A button's action: start, pause, resume or cancel; then the campaign's page. */
  void act(Context ctx, ConsoleRoutes.Viewer v, Side side) {
    long license = side.license(ctx, v, deps);
    long id = Pages.id(ctx, "campaign");
    Campaigns campaigns = deps.campaigns();
    switch (ctx.pathParam("action")) {
      case "start" -> campaigns.start(license, id);
      case "pause" -> campaigns.pause(license, id);
      case "resume" -> campaigns.resume(license, id);
      case "cancel" -> campaigns.cancel(license, id);
      default -> throw ApiException.notFound("No such page.");
    }
    Pages.seeOther(ctx, side.base(license) + "/" + id);
  }

  /** The per-recipient report, as Kurir's API serves it. */
  void report(Context ctx, ConsoleRoutes.Viewer v, Side side) {
    long license = side.license(ctx, v, deps);
    long id = deps.campaigns().get(license, Pages.id(ctx, "campaign")).id();
    ctx.contentType("text/csv; charset=utf-8");
    ctx.header("Content-Disposition", "attachment; filename=\"campaign-" + id + "-report.csv\"");
    try (Writer out = new OutputStreamWriter(ctx.outputStream(), StandardCharsets.UTF_8)) {
      deps.campaigns().writeReport(license, id, out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The chart of a started campaign: from its start to its end (or now), in the widest buckets that
   * keep to {@link #MAX_BUCKETS} (the last ones when even a week's are too many).
   */
  private Optional<SvgChart.Drawing> chart(Campaign c) {
    if (c.startedAt().isEmpty()) {
      return Optional.empty();
    }
    ZoneId zone = deps.timestamps().zone();
    Instant start = c.startedAt().get();
    Instant end = c.finishedAt().orElse(deps.clock().instant());
    if (end.isBefore(start)) {
      end = start; // another node's clock a little behind: the chart starts with its first bucket
    }
    Duration width = WIDTHS.getLast();
    for (Duration w : WIDTHS) {
      if (Duration.between(aligned(start, w, zone), end).dividedBy(w) < MAX_BUCKETS) {
        width = w;
        break;
      }
    }
    Instant from = aligned(start, width, zone);
    long buckets = Math.min(MAX_BUCKETS, Duration.between(from, end).dividedBy(width) + 1);
    from = aligned(end, width, zone).minus(width.multipliedBy(buckets - 1));
    CampaignTimeline t =
        deps.campaigns().timeline(c.licenseId(), c.id(), from, width, (int) buckets);
    boolean days = Duration.between(from, end).compareTo(Duration.ofHours(20)) > 0;
    List<String> labels = new ArrayList<>();
    for (int i = 0; i < buckets; i++) {
      ZonedDateTime at = from.plus(width.multipliedBy(i)).atZone(zone);
      labels.add((days ? DAY_TIME : TIME).format(at));
    }
    return Optional.of(
        SvgChart.draw(
            "campaign-chart",
            "Sends and outcomes over time",
            "per "
                + words(width)
                + " from "
                + local(from)
                + " to "
                + local(from.plus(width.multipliedBy(buckets)))
                + " ("
                + zone.getId()
                + ")",
            labels,
            List.of(
                new SvgChart.Series("queued", t.queued()),
                new SvgChart.Series("sent", t.sent()),
                new SvgChart.Series("delivered", t.delivered()),
                new SvgChart.Series("read", t.read()),
                new SvgChart.Series("failed", t.failed()),
                new SvgChart.Series("opted out", t.optedOut()))));
  }

  /**
   * The start of the bucket of {@code width} that holds {@code at}, counted from midnight in the
   * operator's zone (a week's from the day's midnight), so that buckets begin on the hour.
   */
  private static Instant aligned(Instant at, Duration width, ZoneId zone) {
    ZonedDateTime midnight = at.atZone(zone).toLocalDate().atStartOfDay(zone);
    if (width.compareTo(Duration.ofDays(1)) >= 0) {
      return midnight.toInstant();
    }
    long into = Duration.between(midnight.toInstant(), at).dividedBy(width);
    return midnight.toInstant().plus(width.multipliedBy(into));
  }

  private static String words(Duration width) {
    if (width.toDays() >= 1) {
      return width.toDays() == 1 ? "day" : width.toDays() + " days";
    }
    if (width.toHours() >= 1) {
      return width.toHours() == 1 ? "hour" : width.toHours() + " hours";
    }
    return width.toMinutes() == 1 ? "minute" : width.toMinutes() + " minutes";
  }

  private String local(Instant at) {
    return deps.timestamps().reply(at);
  }

  /** The message's words: its text, or its caption and link. */
  private static String text(JsonNode m) {
    String type = m.path("type").asText();
    JsonNode body = m.path(type);
    if (type.equals("text")) {
      return body.path("body").asText();
    }
    String caption = body.path("caption").asText("");
    String link = body.path("link").asText("");
    return type + (link.isEmpty() ? "" : " " + link) + (caption.isEmpty() ? "" : ": " + caption);
  }

  /** The devices of the license, for the form's pool. */
  static List<DeviceOption> options(List<Device> devices) {
    return devices.stream().map(d -> new DeviceOption(d.id(), d.number(), d.disabled())).toList();
  }
}
