package io.kurir.api.console;

import io.javalin.http.Context;
import io.kurir.tenant.License;
import io.kurir.webhook.Events;
import io.kurir.webhook.WebhookSubscriptions;
import io.kurir.webhook.WebhookSubscriptions.Format;
import io.kurir.webhook.WebhookSubscriptions.Subscription;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A license's webhook subscriptions of Kurir API v1 ({@code /v1/webhooks}): the list, each with the
 * outcomes of its latest deliveries, making one (its secret shown once, as the console shows every
 * new credential) in Kurir's format or Meta's, and removing one.
 */
final class SubscriptionPages {
  /** How many of a subscription's latest deliveries its page shows. */
  static final int RECENT = 10;

  private final ConsoleDeps deps;

  SubscriptionPages(ConsoleDeps deps) {
    this.deps = deps;
  }

  /** The formats to choose from, with what each means. */
  private static final Map<String, String> FORMATS = new LinkedHashMap<>();

  static {
    FORMATS.put(Format.STANDARD.wireName(), "Kurir's events (Standard Webhooks signature)");
    FORMATS.put(Format.META.wireName(), "Meta's Cloud API webhooks (X-Hub-Signature-256)");
  }

  void list(Context ctx, ConsoleRoutes.Viewer v) {
    License l = deps.tenants().license(Pages.id(ctx));
    List<Row> rows = new ArrayList<>();
    for (Subscription s : deps.subscriptions().of(l.id())) {
      rows.add(
          new Row(
              s.id(),
              s.url(),
              String.join(", ", s.events()),
              s.format().wireName(),
              deps.timestamps().reply(s.createdAt()),
              WebhookPages.table(
                  deps.subscriptions().recentDeliveries(l.id(), s.id(), RECENT), v, deps)));
    }
    String base = base(l.id());
    Pages.operator(
        ctx,
        v,
        "Webhook subscriptions of " + l.name(),
        "subscriptions.jte",
        new View(
            base,
            rows,
            Events.TYPES.stream().sorted().toList(),
            FORMATS,
            Pages.typed(ctx, base, "url", ""),
            Pages.typed(ctx, base, "format", Format.STANDARD.wireName()),
            v.csrf()));
  }

  /** One subscription and its latest deliveries. */
  record Row(
      long id,
      String url,
      String events,
      String format,
      String created,
      WebhookPages.Table deliveries) {}

  /** The page: the subscriptions, then the form (what was typed, when refused). */
  record View(
      String base,
      List<Row> subscriptions,
      List<String> events,
      Map<String, String> formats,
      String url,
      String format,
      String csrf) {}

  void create(Context ctx, ConsoleRoutes.Viewer v) {
    License l = deps.tenants().license(Pages.id(ctx));
    WebhookSubscriptions.Created made =
        deps.subscriptions()
            .create(
                l.id(),
                Pages.required(ctx, "url", "the receiver's URL"),
                ctx.formParams("events"),
                WebhookSubscriptions.format(ctx.formParam("format")));
    boolean meta = made.subscription().format() == Format.META;
    OnceShown.keep(
        ctx,
        v,
        new OnceShown.Shown(
            "New webhook subscription",
            List.of(new OnceShown.Secret("Signing secret", made.secret())),
            meta
                ? "The receiver checks X-Hub-Signature-256 with it, as with a Meta app secret: it"
                    + " is not shown again."
                : "The receiver checks the webhook-signature header with it (Standard Webhooks):"
                    + " it is not shown again.",
            "",
            "",
            base(l.id())),
        ConsoleRoutes.overHttps(ctx, deps));
  }

  void remove(Context ctx, ConsoleRoutes.Viewer v) {
    long license = Pages.id(ctx);
    deps.subscriptions().remove(license, Pages.id(ctx, "subscription"));
    Pages.seeOther(ctx, base(license));
  }

  private static String base(long license) {
    return "/console/licenses/" + license + "/webhooks";
  }
}
