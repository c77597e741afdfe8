package io.kurir.api.partner;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.api.ErrorCatalogue;
import io.kurir.api.ErrorStyle;
import io.kurir.api.Guards;
import io.kurir.api.ListedValues;
import io.kurir.api.RequestFields;
import io.kurir.api.RouteTable;
import io.kurir.bot.BotRule;
import io.kurir.bot.Bots;
import io.kurir.bot.MatchType;
import io.kurir.message.FailureReason;
import io.kurir.message.Message;
import io.kurir.message.MessageState;
import io.kurir.message.Messages;
import io.kurir.phone.PhoneNumbers;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.Partner;
import io.kurir.tenant.Tenants;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The Partner API ({@code /v4.0/wa_partner/}): a reseller manages its customers' keyword bots and
 * looks up their keys and messages. Every call carries the partner's Basic credentials and a {@code
 * license} of that partner. Licenses that expired stay manageable here (a partner prepares the bots
 * of a customer who is renewing); their bots answer again once renewed.
 */
public final class PartnerRoutes implements RouteTable {
  /** Message ids per {@code bulk_check_id} call. */
  static final int MAX_BULK_IDS = 1_000;

  private final Tenants tenants;
  private final Bots bots;
  private final Messages messages;
  private final PhoneNumbers phones;

  /** A refused bot rule: 400 {@code bot_not_valid}. */
  private static final ErrorCatalogue ERRORS =
      ErrorCatalogue.builder()
          .add(Bots.RuleRefused.Reason.RULE_REFUSED, 400, "bot_not_valid")
          .build();

  public PartnerRoutes(Tenants tenants, Bots bots, Messages messages, PhoneNumbers phones) {
    this.tenants = tenants;
    this.bots = bots;
    this.messages = messages;
    this.phones = phones;
  }

  @Override
  public ErrorCatalogue errors() {
    return ERRORS;
  }

  @Override
  public String pathPrefix() {
    return "/v4.0/wa_partner/";
  }

  @Override
  public ErrorStyle errorStyle() {
    return ErrorStyle.STATUS_FAILED_JSON;
  }

  @Override
  public void addTo(RoutesConfig routes) {
    routes.post("/v4.0/wa_partner/add_bot", ctx -> addBot(ctx, request(ctx)));
    routes.post("/v4.0/wa_partner/get_bot", ctx -> getBot(ctx, request(ctx)));
    routes.post("/v4.0/wa_partner/delete_bot", ctx -> deleteBot(ctx, request(ctx)));
    routes.post("/v4.0/wa_partner/bulk_check_id", ctx -> bulkCheckId(ctx, request(ctx)));
    routes.post("/v4.0/wa_partner/get_key", this::getKey);
  }

  /** A Partner call: its fields, the partner its credentials name, and that partner's license. */
  private record PartnerRequest(RequestFields fields, Partner partner, License license) {}

  /** Guard: valid Basic credentials, and a {@code license} of that partner. */
  private PartnerRequest request(Context ctx) {
    Partner partner = partner(ctx);
    RequestFields f = RequestFields.of(ctx);
    License license =
        tenants
            .licenseByCode(f.required("license").strip())
            .filter(l -> l.partnerId() == partner.id())
            // Another partner's license answers like an unknown one: codes are not disclosed.
            .orElseThrow(
                () -> new ApiException(404, "license_not_found", "none of your licenses has it"));
    if (license.disabled()) {
      throw new ApiException(403, "license_disabled", "the license is switched off");
    }
    return new PartnerRequest(f, partner, license);
  }

  private Partner partner(Context ctx) {
    return Guards.requirePartner(ctx, tenants);
  }

  // --- bots

  private void addBot(Context ctx, PartnerRequest req) {
    RequestFields f = req.fields();
    String keyword = f.required("bot_keyword");
    String response = f.required("bot_response");
    MatchType type =
        MatchType.ofWireName(f.text("bot_type").orElse("match"))
            .orElseThrow(
                () ->
                    ApiException.fieldNotValid(
                        "bot_type", "bot_type is match, partial or partial_all"));
    boolean replaces = bots.exists(req.license().id(), keyword, type);
    BotRule rule = bots.add(req.license().id(), keyword, response, type);
    Map<String, Object> body = success(replaces ? "bot updated" : "bot added");
    body.put("id", Long.toString(rule.id()));
    ctx.json(body);
  }

  private void getBot(Context ctx, PartnerRequest req) {
    Map<String, Object> data = new LinkedHashMap<>();
    for (BotRule r : bots.rules(req.license().id())) {
      Map<String, Object> rule = new LinkedHashMap<>();
      rule.put("action_type", "reply");
      rule.put("keyword", r.keyword());
      rule.put("match_type", r.matchType().wireName());
      rule.put("text", r.response());
      rule.put("text_type", "text");
      data.put(Long.toString(r.id()), rule);
    }
    Map<String, Object> body = success(data.size() + " bot(s)");
    body.put("data", data);
    ctx.json(body);
  }

  private void deleteBot(Context ctx, PartnerRequest req) {
    String raw = req.fields().required("id").strip();
    if (!raw.matches("\\d{1,18}")) {
      throw ApiException.fieldNotValid("id", "id is a bot id from get_bot");
    }
    if (!bots.delete(req.license().id(), Long.parseLong(raw))) {
      throw ApiException.notFound("the license has no bot " + raw);
    }
    ctx.json(success("bot deleted"));
  }

  // --- keys and messages

  /**
   * The Eco key of the license's device, when {@code email} is the license's account email. A
   * license of another partner answers {@code failed} naming its number as not the caller's client,
   * as the contract says.
   */
  private void getKey(Context ctx) {
    Partner partner = partner(ctx);
    RequestFields f = RequestFields.of(ctx);
    String code = f.required("license").strip();
    String email = f.required("email").strip();
    Optional<License> license = tenants.licenseByCode(code);
    if (license.isEmpty()) {
      throw new ApiException(404, "license_not_found", "no such license");
    }
    List<Device> devices = tenants.devicesOf(license.get());
    String number = devices.isEmpty() ? code : devices.getFirst().number().replaceFirst("^\\+", "");
    // The email first: only a caller who knows the account learns whose client it is.
    if (!license.get().email().equalsIgnoreCase(email)) {
      throw new ApiException(403, "email_not_valid", "the email is not the license's");
    }
    if (license.get().partnerId() != partner.id()) {
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("status", "failed");
      body.put("message", number + " is not your client");
      ctx.json(body);
      return;
    }
    if (license.get().disabled()) {
      throw new ApiException(403, "license_disabled", "the license is switched off");
    }
    if (devices.isEmpty()) {
      throw new ApiException(404, "no_device", "the license has no device yet");
    }
    Device chosen = chosen(devices, f.text("no_wa").map(String::strip));
    Map<String, Object> body = success("found");
    body.put("key", chosen.ecoKey());
    ctx.json(body);
  }

  /**
   * The device whose key {@code get_key} answers: the one numbered {@code noWa} (a license with
   * several devices), read as every number is, in the configured default region; else the first.
   */
  private Device chosen(List<Device> devices, Optional<String> noWa) {
    if (noWa.isEmpty()) {
      return devices.getFirst();
    }
    Optional<String> wanted = phones.normalize(noWa.get());
    return devices.stream()
        .filter(d -> wanted.isPresent() && d.number().equals(wanted.get()))
        .findFirst()
        .orElseThrow(
            () -> new ApiException(404, "no_wa_not_found", "the license has no such device"));
  }

  /**
   * Per id of {@code bulk_msg_id}: {@code {msg_id, status}} with the message's outcome, and {@code
   * reason} when it failed (a field the contract does not list; JSON clients ignore it).
   */
  private void bulkCheckId(Context ctx, PartnerRequest req) {
    String raw = req.fields().required("bulk_msg_id");
    if (ListedValues.moreThan(raw, ",", MAX_BULK_IDS)) { // before the list is split
      throw ApiException.badRequest(
          "bulk_msg_id_too_many", "at most " + MAX_BULK_IDS + " ids per call");
    }
    Set<String> given = new LinkedHashSet<>();
    for (String part : raw.split(",")) {
      if (!part.isBlank()) {
        given.add(part.strip());
      }
    }
    List<Long> ids = new ArrayList<>();
    for (String id : given) {
      if (id.matches("\\d{1,18}")) {
        ids.add(Long.parseLong(id));
      }
    }
    // Deleted devices too: the license's caller still learns how their messages ended.
    Set<Long> devices = tenants.deviceIdsEverOf(req.license());
    Map<Long, Message> found =
        messages.findAll(ids, devices).stream().collect(Collectors.toMap(Message::id, m -> m));
    List<Map<String, Object>> data = new ArrayList<>();
    for (String id : given) {
      Message m = id.matches("\\d{1,18}") ? found.get(Long.parseLong(id)) : null;
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("msg_id", id);
      row.put("status", m == null ? "not_found" : statusOf(m));
      if (m != null) {
        m.failureReason().ifPresent(reason -> row.put("reason", reason)); // only when failed
      }
      data.add(row);
    }
    Map<String, Object> body = success(data.size() + " message(s)");
    body.put("data", data);
    ctx.json(body);
  }

  /** {@code success} once sent, {@code number_not_found}, {@code failed}, or {@code pending}. */
  static String statusOf(Message m) {
    if (m.state().wentOut()) {
      return "success";
    }
    if (m.state() == MessageState.FAILED) {
      return m.reason().filter(FailureReason.NUMBER_NOT_FOUND::equals).isPresent()
          ? "number_not_found"
          : "failed";
    }
    // Claimed by its sender but not out yet: to the partner, still pending.
    return "pending";
  }

  private static Map<String, Object> success(String message) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", "success");
    body.put("message", message);
    return body;
  }
}
