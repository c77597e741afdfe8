package io.kurir.api.v1;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.kurir.api.ApiException;
import io.kurir.api.ErrorCatalogue;
import io.kurir.api.ErrorStyle;
import io.kurir.api.Guards;
import io.kurir.api.RemoteMedia;
import io.kurir.api.RouteTable;
import io.kurir.campaign.Campaigns;
import io.kurir.contact.ContactIdentities;
import io.kurir.contactbook.ContactBook;
import io.kurir.device.DeviceStates;
import io.kurir.driver.Drivers;
import io.kurir.message.Chats;
import io.kurir.message.MessageActions;
import io.kurir.message.MessageHistories;
import io.kurir.message.Sends;
import io.kurir.phone.PhoneNumbers;
import io.kurir.tenant.ApiCaller;
import io.kurir.tenant.ApiScope;
import io.kurir.tenant.Tenants;
import io.kurir.webhook.Events;
import io.kurir.webhook.WebhookSubscriptions;
import java.time.Clock;
import java.util.Optional;

/**
 * Kurir's own API, version 1 ({@code /v1/}, JSON, {@code Authorization: Bearer <key>} with a
 * license's API key or a device's Eco key): sends messages and reads messages and devices. Every
 * route names the scope it needs ({@link #requireScope}); errors are {@code {"error", "message"}}
 * from {@link V1Errors}.
 */
public final class V1Routes implements RouteTable {
  /** The context attribute holding the request's {@link ApiCaller}, set by the guard. */
  static final String CALLER = "kurir.v1.caller";

  private final Tenants tenants;
  private final V1MessageHandlers messages;
  private final V1DeviceHandlers devices;
  private final V1EventHandlers events;
  private final V1WebhookHandlers webhooks;
  private final V1SendHandler send;
  private final V1ChatHandlers chats;
  private final V1ContactHandlers contactBook;
  private final V1ActionHandlers actions;
  private final V1CampaignHandlers campaigns;

  public V1Routes(
      Tenants tenants,
      MessageHistories histories,
      DeviceStates states,
      Sends sends,
      PhoneNumbers phones,
      ContactIdentities contacts,
      RemoteMedia media,
      Events eventLog,
      WebhookSubscriptions subscriptions,
      Clock clock,
      Drivers drivers,
      Chats conversations,
      ContactBook book,
      MessageActions messageActions,
      Campaigns campaignBook) {
    this.tenants = tenants;
    this.send = new V1SendHandler(tenants, sends, phones, contacts, media, histories);
    this.messages = new V1MessageHandlers(tenants, histories, messageActions);
    this.actions =
        new V1ActionHandlers(
            tenants, messageActions, histories, sends, phones, contacts, this.send);
    this.devices = new V1DeviceHandlers(tenants, states, drivers);
    this.events = new V1EventHandlers(eventLog, clock);
    this.webhooks = new V1WebhookHandlers(subscriptions);
    this.chats = new V1ChatHandlers(tenants, conversations, phones, contacts, send::device);
    this.contactBook = new V1ContactHandlers(book);
    this.campaigns = new V1CampaignHandlers(campaignBook);
  }

  @Override
  public String pathPrefix() {
    return "/v1/";
  }

  @Override
  public ErrorStyle errorStyle() {
    return ErrorStyle.KURIR_JSON;
  }

  @Override
  public ErrorCatalogue errors() {
    return V1Errors.CATALOGUE;
  }

  @Override
  public void addTo(RoutesConfig r) {
    r.post("/v1/messages", requireScope(ApiScope.SEND, send::send));
    r.get("/v1/messages", requireScope(ApiScope.READ, messages::list));
    r.get("/v1/messages/{id}", requireScope(ApiScope.READ, messages::one));
    // Conversations: a device's chats, a chat's messages in and out, a message's file.
    r.get("/v1/chats", requireScope(ApiScope.READ, chats::list));
    r.get("/v1/chats/{chat}/messages", requireScope(ApiScope.READ, chats::messages));
    r.get("/v1/media/{id}", requireScope(ApiScope.READ, chats::media));
    // Actions on a message or a chat besides sending: revoke (or cancel), edit, react, read,
    // typing; where the device's driver has them.
    r.delete("/v1/messages/{id}", requireScope(ApiScope.SEND, actions::revoke));
    r.patch("/v1/messages/{id}", requireScope(ApiScope.SEND, actions::edit));
    r.post("/v1/messages/{id}/reactions", requireScope(ApiScope.SEND, actions::react));
    r.post("/v1/chats/{chat}/read", requireScope(ApiScope.SEND, actions::read));
    r.post("/v1/chats/{chat}/typing", requireScope(ApiScope.SEND, actions::typing));
    r.get("/v1/devices", requireScope(ApiScope.READ, devices::list));
    r.get("/v1/devices/{id}", requireScope(ApiScope.READ, devices::one));
    // Events: the pull API and the SSE stream (by Accept) over one log; subscriptions.
    r.get("/v1/events", requireScope(ApiScope.READ, events::read));
    r.post("/v1/webhooks", requireScope(ApiScope.WEBHOOKS, webhooks::create));
    r.get("/v1/webhooks", requireScope(ApiScope.WEBHOOKS, webhooks::list));
    r.delete("/v1/webhooks/{id}", requireScope(ApiScope.WEBHOOKS, webhooks::remove));
    // The license's contact book; the fixed paths before /v1/contacts/{phone}.
    r.post("/v1/contacts/import", requireScope(ApiScope.CONTACTS, contactBook::importCsv));
    r.get("/v1/contacts/export", requireScope(ApiScope.CONTACTS, contactBook::export));
    r.get("/v1/contacts/tags", requireScope(ApiScope.CONTACTS, contactBook::tags));
    r.get("/v1/contacts", requireScope(ApiScope.CONTACTS, contactBook::list));
    r.post("/v1/contacts", requireScope(ApiScope.CONTACTS, contactBook::put));
    r.get("/v1/contacts/{phone}", requireScope(ApiScope.CONTACTS, contactBook::one));
    r.patch("/v1/contacts/{phone}", requireScope(ApiScope.CONTACTS, contactBook::patch));
    r.delete("/v1/contacts/{phone}", requireScope(ApiScope.CONTACTS, contactBook::remove));
    // The license's campaigns.
    r.post("/v1/campaigns", requireScope(ApiScope.CAMPAIGNS, campaigns::create));
    r.get("/v1/campaigns", requireScope(ApiScope.CAMPAIGNS, campaigns::list));
    r.get("/v1/campaigns/{id}", requireScope(ApiScope.CAMPAIGNS, campaigns::one));
    r.get("/v1/campaigns/{id}/report.csv", requireScope(ApiScope.CAMPAIGNS, campaigns::report));
    r.post("/v1/campaigns/{id}/audience", requireScope(ApiScope.CAMPAIGNS, campaigns::uploadList));
    r.post("/v1/campaigns/{id}/start", requireScope(ApiScope.CAMPAIGNS, campaigns::start));
    r.post("/v1/campaigns/{id}/pause", requireScope(ApiScope.CAMPAIGNS, campaigns::pause));
    r.post("/v1/campaigns/{id}/resume", requireScope(ApiScope.CAMPAIGNS, campaigns::resume));
    r.post("/v1/campaigns/{id}/cancel", requireScope(ApiScope.CAMPAIGNS, campaigns::cancel));
  }

  /**
   * Guard: the request's bearer token is a key that may be used ({@link
   * io.kurir.tenant.ApiKeys#caller}: 401 {@code invalid_key} when there is none or nobody has it,
   * 403 {@code disabled}) and it has {@code scope} (403 {@code missing_scope}); the caller is
   * counted against the per-key limit and handed to {@code handler} as {@link #caller}.
   */
  private Handler requireScope(ApiScope scope, Handler handler) {
    return ctx -> {
      ApiCaller caller = tenants.apiKeys().caller(bearer(ctx).orElse(""));
      Guards.countKey(
          ctx, caller.device().map(d -> "device " + d.id()).orElseGet(() -> keyName(caller)));
      if (!caller.has(scope)) {
        throw new ApiException(
            403, "missing_scope", "this key does not have the '" + scope.wireName() + "' scope");
      }
      ctx.attribute(CALLER, caller);
      handler.handle(ctx);
    };
  }

  private static String keyName(ApiCaller caller) {
    return "api key " + caller.keyId().orElseThrow();
  }

  /** The caller the guard admitted. */
  static ApiCaller caller(Context ctx) {
    return ctx.attribute(CALLER);
  }

  private static Optional<String> bearer(Context ctx) {
    String header = Optional.ofNullable(ctx.header("Authorization")).orElse("").strip();
    return header.regionMatches(true, 0, "Bearer ", 0, 7)
        ? Optional.of(header.substring(7).strip()).filter(s -> !s.isEmpty())
        : Optional.empty();
  }
}
