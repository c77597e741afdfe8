package io.kurir.api.v1;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.campaign.Campaign;
import io.kurir.campaign.CampaignDraft;
import io.kurir.campaign.CampaignStatus;
import io.kurir.campaign.Campaigns;
import io.kurir.campaign.ListReport;
import io.kurir.campaign.QuietHours;
import io.kurir.tenant.ApiCaller;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code /v1/campaigns}: a license's campaigns ({@link Campaigns}) — made as drafts, started,
 * paused, resumed, cancelled; each with its progress and its per-recipient report as CSV. Campaigns
 * belong to the license: a device's Eco key, which reaches one device, cannot use them.
 */
final class V1CampaignHandlers {
  private static final List<String> FIELDS =
      List.of(
          "name",
          "audience",
          "message",
          "variants",
          "template",
          "devices",
          "start_at",
          "quiet_hours");

  private final Campaigns campaigns;

  V1CampaignHandlers(Campaigns campaigns) {
    this.campaigns = campaigns;
  }

  /**
   * {@code {name, audience: {tags} or {list: true}, message, variants?, template?, devices?,
   * start_at?, quiet_hours?}}: a new draft, 201 {@code {id, status: "draft", …}}.
   */
  void create(Context ctx) {
    long license = licenseOf(ctx);
    JsonNode body =
        V1ContactHandlers.object(
            ctx,
            "{name, audience: {tags}, message, variants, template, devices, start_at,"
                + " quiet_hours}");
    for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!FIELDS.contains(name)) {
        throw ApiException.unknownField(name, "a campaign has " + String.join(", ", FIELDS));
      }
    }
    JsonNode name = body.path("name");
    if (!name.isMissingNode() && !name.isNull() && !name.isTextual()) {
      throw ApiException.fieldNotValid("name", "name is a text, such as \"Promo Lebaran\"");
    }
    if (!name.isTextual() || name.asText().isBlank()) {
      throw ApiException.fieldEmpty("name");
    }
    JsonNode audience = body.path("audience");
    if (!audience.isMissingNode() && !audience.isNull() && !audience.isObject()) {
      throw ApiException.fieldNotValid(
          "audience", "audience is an object: {\"tags\": [...]} or {\"list\": true}");
    }
    for (Iterator<String> keys = audience.fieldNames(); keys.hasNext(); ) {
      String key = keys.next();
      if (!key.equals("tags") && !key.equals("list")) {
        // The key is quoted and called a key: "audience has no tagz" read as "no tags were given".
        throw ApiException.fieldNotValid(
            "audience",
            "audience has no key '"
                + key
                + "'; it takes tags or list: {\"tags\": [...]} or {\"list\": true}");
      }
    }
    JsonNode tags = audience.path("tags");
    JsonNode listed = audience.path("list");
    boolean list = listed.isBoolean() && listed.asBoolean();
    if (audience.has("list") && !listed.isBoolean()) {
      throw ApiException.fieldNotValid("audience", "audience.list is true or false");
    }
    if (list && audience.has("tags")) {
      throw ApiException.fieldNotValid(
          "audience",
          "audience is either {\"tags\": [...]} (the contact book's tags) or {\"list\": true}"
              + " (a list uploaded to the campaign), not both");
    }
    if (!list && (!tags.isArray() || tags.isEmpty())) {
      throw ApiException.fieldNotValid(
          "audience",
          "audience is {\"tags\": [...]}: the contact book's tags it sends to, or {\"list\":"
              + " true}: a list uploaded to the campaign (POST /v1/campaigns/{id}/audience)");
    }
    List<String> tagList = list ? List.of() : tags(tags);
    JsonNode message = body.path("message");
    if (message.isMissingNode() || message.isNull()) {
      throw ApiException.fieldEmpty("message");
    }
    if (!message.isObject()) {
      throw ApiException.fieldNotValid(
          "message",
          "message is an object, such as {\"type\": \"text\", \"text\": {\"body\": \"Halo"
              + " {name}\"}}");
    }
    noRecipient(message, "message");
    List<ObjectNode> variants = new ArrayList<>();
    if (body.has("variants") && !body.get("variants").isNull()) {
      if (!body.get("variants").isArray()) {
        throw ApiException.fieldNotValid("variants", "variants is a list of message objects");
      }
      for (JsonNode v : body.get("variants")) {
        if (!v.isObject()) {
          throw ApiException.fieldNotValid("variants", "variants is a list of message objects");
        }
        noRecipient(v, "variants");
        variants.add((ObjectNode) v);
      }
    }
    List<String> devices = List.of();
    if (body.has("devices") && !body.get("devices").isNull()) {
      if (!body.get("devices").isArray()) {
        throw ApiException.fieldNotValid("devices", "devices is a list of device ids or numbers");
      }
      devices = texts(body.get("devices"), "devices");
    }
    Optional<Instant> startAt = Optional.empty();
    if (body.has("start_at") && !body.get("start_at").isNull()) {
      try {
        startAt = Optional.of(Instant.parse(body.get("start_at").asText()));
      } catch (DateTimeParseException e) {
        throw ApiException.fieldNotValid(
            "start_at", "start_at is a time in ISO 8601, e.g. 2026-03-10T02:00:00Z");
      }
    }
    Optional<ObjectNode> template = Optional.empty();
    if (body.has("template") && !body.get("template").isNull()) {
      if (!body.get("template").isObject()) {
        throw ApiException.fieldNotValid(
            "template", "template is Meta's template object: {name, language: {code}, components}");
      }
      template = Optional.of((ObjectNode) body.get("template"));
    }
    Optional<QuietHours> quiet = Optional.of(QuietHours.DEFAULT);
    if (body.has("quiet_hours")) {
      quiet = quietHours(body.get("quiet_hours"));
    }
    Campaign c =
        campaigns.create(
            license,
            new CampaignDraft(
                name.asText(),
                tagList,
                (ObjectNode) message,
                variants,
                devices,
                startAt,
                quiet,
                template,
                list));
    ctx.status(201).json(view(c, Optional.empty()));
  }

  /**
   * The CSV body (the contact import's format) as the audience of a draft made with {@code
   * audience: {list: true}}: 200 {@code {rows, listed, merged, opted_out, refused: [{row, reason}],
   * saved}}; {@code ?preview=true} says the same and changes nothing. A second upload replaces the
   * list.
   */
  void uploadList(Context ctx) {
    long license = licenseOf(ctx);
    boolean preview = V1ContactHandlers.bool(ctx, "preview");
    ListReport r = campaigns.uploadList(license, id(ctx), V1ContactHandlers.csvBody(ctx), preview);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("rows", r.rows());
    out.put("listed", r.listed());
    out.put("merged", r.merged());
    out.put("opted_out", r.optedOut());
    out.put("refused", V1ContactHandlers.refused(r.refused()));
    out.put("saved", r.saved());
    ctx.json(out);
  }

  /** {@code {data: [campaign]}}, newest first. */
  void list(Context ctx) {
    long license = licenseOf(ctx);
    List<Map<String, Object>> data = new ArrayList<>();
    campaigns.list(license).forEach(c -> data.add(view(c, Optional.empty())));
    ctx.json(Map.of("data", data));
  }

  /** The campaign with its progress ({@code counts}). */
  void one(Context ctx) {
    long license = licenseOf(ctx);
    Campaign c = campaigns.get(license, id(ctx));
    ctx.json(view(c, Optional.of(campaigns.counts(license, c.id()))));
  }

  void start(Context ctx) {
    long license = licenseOf(ctx);
    ctx.json(view(campaigns.start(license, id(ctx)), Optional.empty()));
  }

  void pause(Context ctx) {
    long license = licenseOf(ctx);
    ctx.json(view(campaigns.pause(license, id(ctx)), Optional.empty()));
  }

  void resume(Context ctx) {
    long license = licenseOf(ctx);
    ctx.json(view(campaigns.resume(license, id(ctx)), Optional.empty()));
  }

  void cancel(Context ctx) {
    long license = licenseOf(ctx);
    ctx.json(view(campaigns.cancel(license, id(ctx)), Optional.empty()));
  }

  /**
   * One row per recipient, by phone: {@code phone, name, variant, device, message_id, status,
   * reason, handed_at, sent_at, settled_at}; written as it is read, a page at a time.
   */
  void report(Context ctx) {
    long license = licenseOf(ctx);
    long id = campaigns.get(license, id(ctx)).id();
    ctx.contentType("text/csv; charset=utf-8");
    ctx.header("Content-Disposition", "attachment; filename=\"campaign-" + id + "-report.csv\"");
    try (Writer out = new OutputStreamWriter(ctx.outputStream(), StandardCharsets.UTF_8)) {
      campaigns.writeReport(license, id, out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Map<String, Object> view(Campaign c, Optional<Campaign.Counts> counts) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("id", Long.toString(c.id()));
    out.put("name", c.name());
    out.put("status", c.status().wireName());
    if (c.list()) {
      Map<String, Object> audience = new LinkedHashMap<>();
      audience.put("list", true);
      // How many contacts the uploaded list holds; null until one is uploaded.
      audience.put("list_rows", c.listRows().orElse(null));
      out.put("audience", audience);
    } else {
      out.put("audience", Map.of("tags", c.tags()));
    }
    out.put("message", c.message());
    out.put("variants", c.variants());
    out.put("template", c.template().map(t -> t.get("template")).orElse(null));
    out.put("devices", c.devices().stream().map(String::valueOf).toList());
    out.put("start_at", c.startAt().map(Instant::toString).orElse(null));
    out.put(
        "quiet_hours",
        c.quietHours()
            .map(q -> Map.of("from", q.from().toString(), "to", q.to().toString()))
            .orElse(null));
    out.put("stop_reason", c.stopReason().orElse(null));
    // Why a running campaign sends nothing now (the safe-sending policy, quiet hours); additive.
    var waiting = c.waiting().filter(w -> c.status() == CampaignStatus.RUNNING);
    out.put("waiting_reason", waiting.map(Campaign.Waiting::reason).orElse(null));
    out.put("waiting_until", waiting.map(w -> w.until().toString()).orElse(null));
    out.put("created_at", c.createdAt().toString());
    out.put("started_at", c.startedAt().map(Instant::toString).orElse(null));
    out.put("finished_at", c.finishedAt().map(Instant::toString).orElse(null));
    counts.ifPresent(
        n -> {
          Map<String, Object> m = new LinkedHashMap<>();
          m.put("total", n.total());
          m.put("waiting", n.waiting());
          m.put("queued", n.queued());
          m.put("sent", n.sent());
          m.put("delivered", n.delivered());
          m.put("read", n.read());
          m.put("failed", n.failed());
          m.put("replied", n.replied());
          m.put("opted_out", n.optedOut());
          m.put("cancelled", n.cancelled());
          out.put("counts", m);
        });
    return out;
  }

  /** {@code {from, to}} as {@code HH:MM}, or null: none. */
  private static Optional<QuietHours> quietHours(JsonNode q) {
    if (q == null || q.isNull()) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          new QuietHours(
              LocalTime.parse(q.path("from").asText()), LocalTime.parse(q.path("to").asText())));
    } catch (DateTimeParseException | IllegalArgumentException e) {
      throw ApiException.fieldNotValid(
          "quiet_hours",
          "quiet_hours is {\"from\": \"21:00\", \"to\": \"06:00\"} (two different times), or"
              + " null for none");
    }
  }

  /** A campaign's messages go to its audience: a {@code to} in one is a mistake, not ignored. */
  private static void noRecipient(JsonNode message, String field) {
    if (message.has("to")) {
      throw ApiException.fieldNotValid(
          field,
          field
              + " has no to: a campaign sends to its audience (the tags or the uploaded list),"
              + " each recipient its own message");
    }
  }

  /** The audience's tags: texts, as the contact book's tags are. */
  private static List<String> tags(JsonNode array) {
    List<String> out = new ArrayList<>();
    for (JsonNode n : array) {
      if (!n.isTextual() || n.asText().isBlank()) {
        throw ApiException.fieldNotValid(
            "audience", "audience.tags is a list of tags, each a text such as \"pelanggan\"");
      }
      out.add(n.asText());
    }
    return out;
  }

  private static List<String> texts(JsonNode array, String field) {
    List<String> out = new ArrayList<>();
    for (JsonNode n : array) {
      if (!(n.isTextual() || n.isIntegralNumber()) || n.asText().isBlank()) {
        throw ApiException.fieldNotValid(field, field + " is a list of texts");
      }
      out.add(n.asText());
    }
    return out;
  }

  private static long id(Context ctx) {
    try {
      return Long.parseLong(ctx.pathParam("id"));
    } catch (NumberFormatException e) {
      throw new ApiException(404, "campaign_not_found", "no campaign " + ctx.pathParam("id"));
    }
  }

  private static long licenseOf(Context ctx) {
    ApiCaller caller = V1Routes.caller(ctx);
    if (caller.device().isPresent()) {
      throw new ApiException(
          403,
          "license_key_required",
          "campaigns belong to the license: use a license API key with the 'campaigns' scope");
    }
    return caller.license().id();
  }
}
