package io.kurir.api.v1;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.tenant.ApiCaller;
import io.kurir.webhook.WebhookSubscriptions;
import io.kurir.webhook.WebhookSubscriptions.Subscription;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code /v1/webhooks}: a license's webhook subscriptions ({@link WebhookSubscriptions}). They
 * belong to the license: a device's Eco key, which reaches one device, cannot manage them.
 */
public final class V1WebhookHandlers {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final WebhookSubscriptions subscriptions;

  V1WebhookHandlers(WebhookSubscriptions subscriptions) {
    this.subscriptions = subscriptions;
  }

  /**
   * {@code {url, events: [...], format?}} → 201 with the {@code secret}, told this once; {@code
   * format} is {@code standard} (the default) or {@code meta}.
   */
  void create(Context ctx) {
    long license = licenseOf(ctx);
    JsonNode body;
    try {
      body = JSON.readTree(io.kurir.api.RequestBody.text(ctx));
    } catch (IOException e) {
      throw ApiException.badRequest("malformed_json", "the body is not JSON");
    }
    if (body == null || !body.isObject()) {
      throw ApiException.badRequest("malformed_json", "the body is a JSON object {url, events}");
    }
    JsonNode url = body.path("url");
    if (!url.isTextual()) {
      throw ApiException.badRequest("invalid_url", "url is the receiver's http or https URL");
    }
    JsonNode given = body.path("events");
    if (!given.isArray()) {
      throw ApiException.badRequest(
          "invalid_events", "events is a list of event types, e.g. [\"message.status\"]");
    }
    List<String> events = new ArrayList<>();
    for (JsonNode e : given) {
      if (!e.isTextual()) {
        throw ApiException.badRequest("invalid_events", "each of events is an event type");
      }
      events.add(e.asText());
    }
    JsonNode format = body.path("format");
    if (!format.isMissingNode() && !format.isNull() && !format.isTextual()) {
      throw ApiException.badRequest("invalid_format", "format is \"standard\" or \"meta\"");
    }
    WebhookSubscriptions.Created created =
        subscriptions.create(
            license,
            url.asText(),
            events,
            WebhookSubscriptions.format(format.isTextual() ? format.asText() : null));
    ctx.status(201).json(created(created));
  }

  /** A new subscription as answered once: its view and its {@code secret}. */
  public static Map<String, Object> created(WebhookSubscriptions.Created created) {
    Map<String, Object> reply = view(created.subscription());
    reply.put("secret", created.secret());
    return reply;
  }

  void list(Context ctx) {
    List<Map<String, Object>> data = new ArrayList<>();
    for (Subscription s : subscriptions.of(licenseOf(ctx))) {
      data.add(view(s));
    }
    ctx.json(Map.of("data", data));
  }

  void remove(Context ctx) {
    long license = licenseOf(ctx);
    String id = ctx.pathParam("id");
    if (!id.matches("\\d{1,18}")) {
      throw new ApiException(404, "webhook_not_found", "no webhook subscription " + id);
    }
    subscriptions.remove(license, Long.parseLong(id));
    ctx.status(204);
  }

  private static long licenseOf(Context ctx) {
    ApiCaller caller = V1Routes.caller(ctx);
    if (caller.device().isPresent()) {
      throw new ApiException(
          403,
          "license_key_required",
          "webhook subscriptions belong to the license: use a license API key with the"
              + " 'webhooks' scope");
    }
    return caller.license().id();
  }

  /**
   * A subscription as Kurir's API shows it (never its secret): also what {@code ./kurir admin
   * subscription} prints.
   */
  public static Map<String, Object> view(Subscription s) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("id", Long.toString(s.id()));
    out.put("url", s.url());
    out.put("events", s.events());
    out.put("format", s.format().wireName());
    out.put("created_at", s.createdAt().toString());
    return out;
  }
}
