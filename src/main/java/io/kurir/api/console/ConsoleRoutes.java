package io.kurir.api.console;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.Cookie;
import io.javalin.http.Handler;
import io.javalin.http.HttpStatus;
import io.javalin.http.SameSite;
import io.kurir.api.ApiException;
import io.kurir.api.ClientAddress;
import io.kurir.api.ErrorCatalogue;
import io.kurir.api.ErrorStyle;
import io.kurir.api.RouteTable;
import io.kurir.api.admin.AdminRoutes;
import io.kurir.bot.Bots;
import io.kurir.campaign.CampaignRefused;
import io.kurir.console.ConsoleSessions;
import io.kurir.console.ConsoleSessions.Session;
import io.kurir.content.ContentRefused;
import io.kurir.core.KurirException;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.TenantException;
import io.kurir.tenant.Tenants.Credential;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The web console ({@code /console}, HTML): operators sign in with the admin token, customers with
 * their license code or a device key. Every page, with its guard: {@code operator} pages need an
 * operator's session, {@code customer} pages a customer's, and every POST the session's CSRF token.
 */
public final class ConsoleRoutes implements RouteTable {
  private static final Logger log = LoggerFactory.getLogger(ConsoleRoutes.class);
  static final String COOKIE = "kurir_console";

  private final ConsoleDeps deps;
  private final DashboardPage dashboard;
  private final TenantPages tenants;
  private final DevicePages devices;
  private final MessagePages messages;
  private final WebhookPages webhooks;
  private final AutoReplyPages autoReplies;
  private final ApiKeyPages apiKeys;
  private final ContactPages contacts;
  private final CampaignPages campaigns;
  private final SubscriptionPages subscriptions;
  private final SchedulePages schedules;
  private final CustomerPages customer;
  private final ChatPages chats;
  private final ChatPages.Side operatorChats;
  private final ChatPages.Side customerChats;

  public ConsoleRoutes(ConsoleDeps deps) {
    this.deps = deps;
    this.dashboard = new DashboardPage(deps);
    this.tenants = new TenantPages(deps);
    this.devices = new DevicePages(deps);
    this.messages = new MessagePages(deps);
    this.webhooks = new WebhookPages(deps);
    this.autoReplies = new AutoReplyPages(deps);
    this.apiKeys = new ApiKeyPages(deps);
    this.contacts = new ContactPages(deps);
    this.campaigns = new CampaignPages(deps);
    this.subscriptions = new SubscriptionPages(deps);
    this.schedules = new SchedulePages(deps);
    this.customer = new CustomerPages(deps, devices);
    this.chats = new ChatPages(deps);
    this.operatorChats =
        new ChatPages.Side("/console/devices/", (ctx, v) -> deps.tenants().device(Pages.id(ctx)));
    this.customerChats = new ChatPages.Side("/console/my/devices/", customer::own);
  }

  @Override
  public String pathPrefix() {
    return "/console";
  }

  @Override
  public ErrorStyle errorStyle() {
    return this::errorPage;
  }

  /**
   * The refusals a form's action can meet, each shown on the form's page: the tenant core's in the
   * Admin API's tokens, a refused send (naming {@code text}), schedule or auto-reply.
   */
  private static final ErrorCatalogue FORM_ERRORS =
      DevicePages.refusals(ErrorCatalogue.builderWithoutCommon().addAll(AdminRoutes.ERRORS))
          .sendRefusals("text")
          .add(Bots.RuleRefused.Reason.RULE_REFUSED, 400, "rule_refused")
          .contactRefusals()
          // Campaigns, in Kurir API v1's tokens; a message the form made that the API refuses.
          .add(CampaignRefused.Reason.FIELD_NOT_VALID, 400, "invalid_campaign")
          .add(CampaignRefused.Reason.DEVICE_NOT_FOUND, 404, "device_not_found")
          .add(CampaignRefused.Reason.STATUS_NOT_VALID, 409, "campaign_status")
          .add(CampaignRefused.Reason.NOT_FOUND, 404, "campaign_not_found")
          .add(CampaignRefused.Reason.LIST_MISSING, 409, "list_missing")
          // A Cloud API number in the pool and no template (the form has no template field).
          .add(CampaignRefused.Reason.TEMPLATE_REQUIRED, 422, "template_required")
          .add(ContentRefused.Reason.CONTENT_EMPTY, ConsoleRoutes::contentRefused)
          .add(ContentRefused.Reason.CONTENT_NOT_VALID, ConsoleRoutes::contentRefused)
          .add(ContentRefused.Reason.CONTENT_TOO_LONG, ConsoleRoutes::contentRefused)
          // Webhook subscriptions, in Kurir API v1's tokens.
          .subscriptionRefusals()
          .build();

  private static ApiException contentRefused(KurirException e) {
    return new ApiException(400, ((ContentRefused) e).token(), e.getMessage());
  }

  /** {@link #FORM_ERRORS} and the refusals every family answers alike, for any page. */
  private static final ErrorCatalogue ERRORS = ErrorCatalogue.builder().addAll(FORM_ERRORS).build();

  @Override
  public ErrorCatalogue errors() {
    return ERRORS;
  }

  @Override
  public void addTo(RoutesConfig r) {
    r.get("/console/assets/{file}", this::asset);
    r.get("/console/sign-in", ctx -> signInPage(ctx, Optional.empty(), 200));
    r.post("/console/sign-in", this::signIn);
    r.post("/console/sign-out", this::signOut);

    r.get("/console", operator(dashboard::show));
    r.get(OnceShown.PATH, operator(tenants::shown));
    r.get("/console/partners", operator(tenants::partners));
    r.post("/console/partners", operator(form(tenants::createPartner, tenants::partners)));
    r.post(
        "/console/partners/{id}/{action}",
        operator(form(tenants::partnerAction, tenants::partners)));
    r.get("/console/licenses", operator(tenants::licenses));
    r.post("/console/licenses", operator(form(tenants::createLicense, tenants::licenses)));
    // Before the license actions, whose {action} would take "auto-replies" and "api-keys" too.
    campaignRoutes(r, "/console/licenses/{id}/campaigns", this::operator, CampaignPages.OPERATOR);
    campaignRoutes(r, "/console/my/campaigns", this::customer, CampaignPages.CUSTOMER);
    r.post("/console/licenses/{id}/api-keys", operator(form(apiKeys::create, apiKeys::list)));
    r.post(
        "/console/licenses/{id}/webhooks",
        operator(form(subscriptions::create, subscriptions::list)));
    r.post(
        "/console/licenses/{id}/auto-replies", operator(form(autoReplies::add, autoReplies::list)));
    r.post(
        "/console/licenses/{id}/{action}",
        operator(form(tenants::licenseAction, tenants::licenses)));
    r.get("/console/devices", operator(tenants::devices));
    r.post("/console/devices", operator(form(tenants::createDevice, tenants::devices)));
    r.post(
        "/console/devices/{id}/rotate",
        operator(form(tenants::rotateDevice, devices::operatorPage)));
    r.post(
        "/console/devices/{id}/disable",
        operator(form((ctx, v) -> tenants.setDisabled(ctx, true), devices::operatorPage)));
    r.post(
        "/console/devices/{id}/enable",
        operator(form((ctx, v) -> tenants.setDisabled(ctx, false), devices::operatorPage)));

    r.post("/console/devices/{id}/delete", operator(form(devices::delete, devices::operatorPage)));
    r.get("/console/devices/{id}", operator(devices::operatorPage));
    r.get("/console/devices/{id}/pairing", operator(devices::operatorPairing));
    r.post(
        "/console/devices/{id}/scan",
        operator(form(devices::simulatedScan, devices::operatorPage)));
    r.post("/console/devices/{id}/logout", operator(form(devices::logout, devices::operatorPage)));
    r.post("/console/devices/{id}/retry", operator(form(devices::retry, devices::operatorPage)));
    r.post(
        "/console/devices/{id}/webhooks",
        operator(form(devices::setWebhooks, devices::operatorPage)));
    r.post("/console/devices/{id}/send", operator(form(devices::sendTest, devices::operatorPage)));
    r.post(
        "/console/devices/{id}/send-group",
        operator(form(devices::sendToGroup, devices::operatorPage)));
    r.post(
        "/console/devices/{id}/schedule", operator(form(devices::schedule, devices::operatorPage)));

    // Conversations of a device, for operators and for customers (their own devices).
    r.get("/console/devices/{id}/chats", operator((c, v) -> chats.list(c, v, operatorChats)));
    r.get(
        "/console/devices/{id}/chats/{chat}", operator((c, v) -> chats.chat(c, v, operatorChats)));
    r.post(
        "/console/devices/{id}/chats/{chat}/reply",
        operator(
            form(
                (c, v) -> chats.reply(c, v, operatorChats),
                (c, v) -> chats.chat(c, v, operatorChats))));
    r.get(
        "/console/devices/{id}/media/{message}",
        operator((c, v) -> chats.media(c, v, operatorChats)));
    r.get("/console/my/devices/{id}/chats", customer((c, v) -> chats.list(c, v, customerChats)));
    r.get(
        "/console/my/devices/{id}/chats/{chat}",
        customer((c, v) -> chats.chat(c, v, customerChats)));
    r.post(
        "/console/my/devices/{id}/chats/{chat}/reply",
        customer(
            form(
                (c, v) -> chats.reply(c, v, customerChats),
                (c, v) -> chats.chat(c, v, customerChats))));
    r.get(
        "/console/my/devices/{id}/media/{message}",
        customer((c, v) -> chats.media(c, v, customerChats)));
    r.get("/console/messages", operator(messages::search));
    r.get("/console/messages/{id}", operator(messages::show));
    r.get("/console/messages/{id}/history", operator(messages::history));
    r.get("/console/webhooks", operator(webhooks::list));
    r.post("/console/webhooks/{id}/replay", operator(form(webhooks::replay, webhooks::list)));
    r.get("/console/licenses/{id}/auto-replies", operator(autoReplies::list));
    r.get("/console/licenses/{id}/api-keys", operator(apiKeys::list));
    r.get("/console/licenses/{id}/webhooks", operator(subscriptions::list));
    r.post(
        "/console/licenses/{id}/webhooks/{subscription}/remove",
        operator(form(subscriptions::remove, subscriptions::list)));
    r.post(
        "/console/licenses/{id}/api-keys/{key}/revoke",
        operator(form(apiKeys::revoke, apiKeys::list)));
    r.post(
        "/console/licenses/{id}/auto-replies/{rule}/delete",
        operator(form(autoReplies::delete, autoReplies::list)));
    r.get("/console/licenses/{id}/contacts", operator(contacts::list));
    r.get("/console/licenses/{id}/contacts/export", operator(contacts::export));
    r.post(
        "/console/licenses/{id}/contacts/import",
        operator(form(contacts::importCsv, contacts::list)));
    r.post(
        "/console/licenses/{id}/contacts/{phone}/unsubscribe",
        operator(form(contacts::unsubscribe, contacts::list)));
    r.post(
        "/console/licenses/{id}/contacts/{phone}/resubscribe",
        operator(form(contacts::resubscribe, contacts::list)));
    r.post(
        "/console/licenses/{id}/contacts/{phone}/delete",
        operator(form(contacts::delete, contacts::list)));
    r.get("/console/campaigns", operator(campaigns::all));
    r.get("/console/schedules", operator(schedules::list));
    r.post("/console/schedules/{id}/cancel", operator(form(schedules::cancel, schedules::list)));

    r.get("/console/my", customer(customer::home));
    r.get("/console/my/devices/{id}", customer(customer::device));
    r.get("/console/my/devices/{id}/pairing", customer(customer::pairing));
    r.post("/console/my/devices/{id}/logout", customer(form(customer::logout, customer::device)));
    r.post(
        "/console/my/devices/{id}/webhooks",
        customer(form(customer::setWebhooks, customer::device)));
    r.post("/console/my/devices/{id}/script", customer(form(customer::script, customer::device)));
  }

  /**
   * A license's campaign pages under {@code base}, behind {@code guard}: the list with the form
   * that makes one, a campaign's page, its report, and its buttons. Registered before the license
   * actions, whose {@code {action}} would take "campaigns" too.
   */
  private void campaignRoutes(
      RoutesConfig r, String base, Function<Page, Handler> guard, CampaignPages.Side side) {
    Page list = (c, v) -> campaigns.list(c, v, side);
    Page show = (c, v) -> campaigns.show(c, v, side);
    r.get(base, guard.apply(list));
    r.post(base, guard.apply(form((c, v) -> campaigns.create(c, v, side), list)));
    r.get(base + "/{campaign}", guard.apply(show));
    r.get(base + "/{campaign}/report.csv", guard.apply((c, v) -> campaigns.report(c, v, side)));
    r.post(
        base + "/{campaign}/{action}",
        guard.apply(form((c, v) -> campaigns.act(c, v, side), show)));
  }

  /**
   * A form's POST: {@code action} does the work and redirects (Post/Redirect/Get, so a reload never
   * repeats it). When it refuses, the form's own page ({@code page}) answers instead, with the
   * navigation, the problem above it and what was typed still in the fields.
   */
  private static Page form(Page action, Page page) {
    return (ctx, v) -> {
      ApiException refused;
      try {
        action.handle(ctx, v);
        return;
      } catch (ApiException e) {
        refused = e;
      } catch (KurirException e) {
        // A refusal the form can correct: shown on its page; any other as an error page.
        refused = FORM_ERRORS.answer(e).orElseThrow(() -> e);
      }
      ctx.attribute(
          Pages.PROBLEM, Optional.ofNullable(refused.getMessage()).orElse(refused.token()));
      ctx.status(refused.status());
      page.handle(ctx, v);
    };
  }

  /** A page's work, given who is signed in. */
  @FunctionalInterface
  interface Page {
    void handle(Context ctx, Viewer viewer) throws Exception;
  }

  /** Who is looking: their session (the CSRF token of their forms, their license if a customer). */
  record Viewer(Session session) {
    String csrf() {
      return session.csrf();
    }

    long licenseId() {
      return session.licenseId().orElseThrow();
    }
  }

  /** Guard: an operator is signed in; a POST carries the session's CSRF token. */
  private Handler operator(Page page) {
    return signedIn(true, page);
  }

  /** Guard: a customer is signed in (they see their own license only); POSTs carry the token. */
  private Handler customer(Page page) {
    return signedIn(false, page);
  }

  /** Someone is signed in, of the kind the page is for; the other kind goes to their own home. */
  private Handler signedIn(boolean operatorPage, Page page) {
    return ctx -> {
      Optional<Viewer> viewer = viewer(ctx);
      if (viewer.isEmpty()) {
        toSignIn(ctx);
      } else if (viewer.get().session().operator() != operatorPage) {
        ctx.redirect(operatorPage ? "/console/my" : "/console", HttpStatus.SEE_OTHER);
      } else {
        run(ctx, viewer.get(), page);
      }
    };
  }

  private void run(Context ctx, Viewer viewer, Page page) throws Exception {
    readForm(ctx);
    if (ctx.method().name().equals("POST")
        && !viewer.session().csrfMatches(ctx.formParam("csrf"))) {
      throw new ApiException(
          403, "stale_form", "This form has expired: go back, reload the page and try again.");
    }
    // Pages show credentials: no cache may keep them, and no other site may frame them.
    ctx.header("Cache-Control", "no-store");
    ctx.header("X-Frame-Options", "DENY");
    ctx.header(
        "Content-Security-Policy",
        "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'");
    page.handle(ctx, viewer);
  }

  /**
   * Reads a POST's form body before anything asks for a field: a body Jetty cannot parse (a broken
   * multipart body) is the sender's mistake, so it is a 400 page with one log line, not a 500 with
   * a stack trace. Later {@code formParam} calls read the parsed copy.
   */
  private static void readForm(Context ctx) {
    if (!ctx.method().name().equals("POST")) {
      return;
    }
    try {
      ctx.formParamMap();
    } catch (Exception e) { // Jetty's checked exceptions arrive unchecked through Kotlin
      Throwable root = e;
      while (root.getCause() != null && root.getCause() != root) {
        root = root.getCause();
      }
      // DEBUG: anyone can send a broken body, without signing in, as often as they like.
      log.debug("console {}: unreadable form body ({})", ctx.path(), root.toString());
      throw new ApiException(
          400, "form_not_readable", "The form could not be read: go back and send it again.");
    }
  }

  private Optional<Viewer> viewer(Context ctx) {
    return deps.consoleSessions().find(ctx.cookie(COOKIE)).map(Viewer::new);
  }

  private static void toSignIn(Context ctx) {
    if (ctx.header("X-Console-Fragment") != null || !ctx.method().name().equals("GET")) {
      throw new ApiException(401, "signed_out", "You are signed out: sign in again.");
    }
    ctx.redirect("/console/sign-in", HttpStatus.SEE_OTHER);
  }

  private void signInPage(Context ctx, Optional<String> problem, int status) {
    ctx.status(status);
    ctx.html(
        Templates.render(
            "signIn.jte",
            Map.of(
                "frame",
                new Pages.Frame("Sign in", List.of(), "", problem.orElse("")),
                "operatorsMaySignIn",
                deps.adminToken().isPresent())));
  }

  /**
   * Signs in an operator (the admin token) or a customer (a license code, or the multi-agent device
   * key of one of its devices). The secret travels in the form body, never in a URL; failures are
   * limited per client address.
   */
  private void signIn(Context ctx) {
    readForm(ctx);
    String address = ClientAddress.of(ctx, deps.trustedProxies());
    if (!deps.signInLimiter().tryAttempt(address)) {
      signInPage(ctx, Optional.of("Too many failed sign-ins: wait a few minutes."), 429);
      return;
    }
    String secret = Optional.ofNullable(ctx.formParam("secret")).orElse("").strip();
    boolean asOperator = "operator".equals(ctx.formParam("as"));
    Optional<Optional<Long>> who =
        asOperator ? operatorFor(secret).map(ok -> Optional.empty()) : licenseFor(secret);
    if (who.isEmpty()) { // the try stays taken
      signInPage(
          ctx,
          Optional.of(
              asOperator ? "That is not the admin token." : "No license or device has that code."),
          401);
      return;
    }
    deps.signInLimiter().succeeded(address);
    ConsoleSessions.Opened opened = deps.consoleSessions().open(who.get());
    Cookie cookie = new Cookie(COOKIE, opened.cookieValue());
    cookie.setPath("/console");
    cookie.setHttpOnly(true);
    cookie.setSameSite(SameSite.LAX);
    cookie.setSecure(overHttps(ctx, deps));
    cookie.setMaxAge((int) ConsoleSessions.LIFETIME.toSeconds());
    ctx.cookie(cookie);
    ctx.redirect(asOperator ? "/console" : "/console/my", HttpStatus.SEE_OTHER);
  }

  private Optional<Boolean> operatorFor(String secret) {
    return deps.adminToken()
        .filter(
            token ->
                !secret.isEmpty()
                    && MessageDigest.isEqual(
                        token.getBytes(StandardCharsets.UTF_8),
                        secret.getBytes(StandardCharsets.UTF_8)))
        .map(token -> true);
  }

  /** The license a customer's secret opens: its code, or a device key of one of its devices. */
  private Optional<Optional<Long>> licenseFor(String secret) {
    if (secret.isEmpty()) {
      return Optional.empty();
    }
    Optional<License> license = deps.tenants().licenseByCode(secret);
    if (license.isEmpty()) {
      try {
        Device device = deps.tenants().deviceFor(Credential.DEVICE_KEY, secret);
        license = Optional.of(deps.tenants().license(device.licenseId()));
      } catch (TenantException e) {
        return Optional.empty();
      }
    }
    return license.filter(l -> !l.disabled()).map(l -> Optional.of(l.id()));
  }

  /** Whether the browser reached Kurir over HTTPS (itself, or a proxy before it). */
  static boolean overHttps(Context ctx, ConsoleDeps deps) {
    return "https".equalsIgnoreCase(ctx.scheme())
        || "https".equalsIgnoreCase(ctx.header("X-Forwarded-Proto"))
        || deps.publicUrl().map(u -> u.startsWith("https://")).orElse(false);
  }

  private void signOut(Context ctx) {
    readForm(ctx);
    Optional<Viewer> viewer = viewer(ctx);
    if (viewer.isPresent() && viewer.get().session().csrfMatches(ctx.formParam("csrf"))) {
      deps.consoleSessions().close(ctx.cookie(COOKIE));
    }
    ctx.removeCookie(COOKIE, "/console");
    ctx.redirect("/console/sign-in", HttpStatus.SEE_OTHER);
  }

  private static final Map<String, String> ASSETS =
      Map.of("console.css", "text/css; charset=utf-8", "console.js", "text/javascript");

  /** The stylesheet and the script, from the jar: the console loads nothing from elsewhere. */
  private void asset(Context ctx) {
    String file = ctx.pathParam("file");
    String type = ASSETS.get(file);
    if (type == null) {
      throw ApiException.notFound("No such file.");
    }
    try (InputStream in = ConsoleRoutes.class.getResourceAsStream("/console/" + file)) {
      if (in == null) {
        throw new IllegalStateException("console asset missing from the build: " + file);
      }
      ctx.contentType(type).header("Cache-Control", "max-age=300").result(in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A refused request as a page that says what went wrong and leads back: with the navigation of
   * whoever is signed in, so that no error is a dead end.
   */
  private void errorPage(Context ctx, ApiException e) {
    String detail = Optional.ofNullable(e.getMessage()).orElse(e.token());
    ctx.status(e.status());
    if (ctx.header("X-Console-Fragment") != null) {
      ctx.html(Templates.render("errorFragment.jte", Map.of("detail", detail)));
      return;
    }
    String title = e.status() == 404 ? "Not found" : "Not done";
    Optional<Viewer> viewer = viewer(ctx);
    List<Pages.Link> nav =
        viewer
            .map(v -> v.session().operator() ? Pages.OPERATOR_NAV : Pages.CUSTOMER_NAV)
            .orElse(List.of());
    String csrf = viewer.map(Viewer::csrf).orElse("");
    ctx.html(
        Templates.render(
            "error.jte", Map.of("frame", new Pages.Frame(title, nav, csrf, ""), "detail", detail)));
  }
}
