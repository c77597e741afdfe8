package io.kurir;

import io.kurir.api.DriverRouteTable;
import io.kurir.api.RemoteMedia;
import io.kurir.api.RouteTable;
import io.kurir.api.account.AccountRoutes;
import io.kurir.api.admin.AdminRoutes;
import io.kurir.api.console.ConsoleDeps;
import io.kurir.api.console.ConsoleRoutes;
import io.kurir.api.crm.CrmRoutes;
import io.kurir.api.docs.ApiDocsRoutes;
import io.kurir.api.eco.EcoDeviceHandlers;
import io.kurir.api.eco.EcoMediaHandlers;
import io.kurir.api.eco.EcoMessageHandlers;
import io.kurir.api.eco.EcoReportHandlers;
import io.kurir.api.eco.EcoRoutes;
import io.kurir.api.eco.EcoScheduleHandlers;
import io.kurir.api.eco.EcoUploadHandlers;
import io.kurir.api.multiagent.MultiAgentRoutes;
import io.kurir.api.partner.PartnerRoutes;
import io.kurir.api.push.PushV1Routes;
import io.kurir.api.push.PushV2Routes;
import io.kurir.api.v1.V1Routes;
import io.kurir.config.Settings;
import io.kurir.console.ConsoleSessions;
import io.kurir.console.SignInLimiter;
import io.kurir.driver.DriverCatalog;
import io.kurir.driver.DriverFactory;
import io.kurir.driver.DriverRoutesContext;
import io.kurir.driver.SimulatedPhones;
import io.kurir.health.Health;
import io.kurir.health.HealthRoutes;
import io.kurir.media.Uploads;
import io.kurir.message.Chats;
import io.kurir.message.MessageHistories;
import io.kurir.message.MessageSearch;
import io.kurir.report.Reports;
import io.kurir.tenant.TenantDeviceLookup;
import io.kurir.tenant.TenantViews;
import io.kurir.webhook.WebhookDeliveries;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Every route table a gateway serves, built from its {@link Core}: the seven families, the Admin
 * API, the console, the drivers' own routes, the API document and health. One place, so adding a
 * family is one more line here and one package under {@code api/}.
 */
final class FamilyRoutes {
  private FamilyRoutes() {}

  /** The route tables over {@code core}, in the order the HTTP layer mounts them. */
  static List<RouteTable> of(Core core, DriverCatalog catalog) {
    Settings settings = core.settings();
    List<RouteTable> tables = new ArrayList<>();
    // Revoke, edit, read marks, typing: Kurir's API and the Cloud API's door.
    io.kurir.message.MessageActions actions = messageActions(core);
    EcoMessageHandlers ecoMessages =
        new EcoMessageHandlers(
            core.messages(),
            core.sends(),
            core.phones(),
            core.contacts(),
            core.timestamps(),
            core.clock());
    tables.add(
        new EcoRoutes(
            core.tenants(),
            ecoMessages,
            new EcoMediaHandlers(ecoMessages, core.callerMedia(), settings.media().maxKb()),
            new EcoUploadHandlers(
                new Uploads(
                    core.db(),
                    core.ids(),
                    core.clock(),
                    core.mediaFiles(),
                    settings.media().maxBytes(),
                    settings.media().uploadQuotaBytes()),
                ecoMessages,
                settings.media().maxKb()),
            ecoMessages.groups(),
            new EcoReportHandlers(
                new Reports(core.db(), core.clock(), settings.zone()), core.timestamps()),
            new EcoDeviceHandlers(core.sessions(), core.urlGuard(), Gateway.VERSION),
            new EcoScheduleHandlers(
                core.schedules(),
                core.phones(),
                core.timestamps(),
                settings.media().maxKb(),
                core.contacts()),
            settings.trustedProxies()));
    tables.add(
        new AdminRoutes(
            core.tenants(),
            new TenantViews(core.timestamps()),
            core.messages(),
            core.sessions(),
            core.messageWebhooks(),
            new WebhookDeliveries(core.db(), core.clock()),
            core.outbox()::wake,
            settings.webhooks().secretOverlap(),
            core.timestamps(),
            core.mobileCs(),
            settings.pushAppId(),
            settings.publicUrlIfSet(),
            settings.adminTokenIfSet()));
    // Conversations, read by Kurir's API and the console alike.
    Chats chats = new Chats(core.db(), new MessageHistories(core.db()));
    tables.add(
        new ConsoleRoutes(
            new ConsoleDeps(
                core.tenants(),
                core.messages(),
                core.sends(),
                new MessageSearch(core.db()),
                core.sessions(),
                core.messageWebhooks(),
                new WebhookDeliveries(core.db(), core.clock()),
                core.outbox()::wake,
                core.urlGuard(),
                core.bots(),
                core.schedules(),
                core.phones(),
                core.timestamps(),
                core.clock(),
                new ConsoleSessions(core.db(), core.clock()),
                new SignInLimiter(core.clock()),
                simulatedPhone(core),
                settings.webhooks().secretOverlap(),
                settings.adminTokenIfSet(),
                settings.publicUrlIfSet(),
                settings.trustedProxies(),
                chats,
                core.contactBook(),
                core.webhookSubscriptions(),
                core.campaigns())));
    RemoteMedia remoteMedia = new RemoteMedia(core.callerMedia(), settings.media().maxKb());
    tables.add(
        new AccountRoutes(
            core.tenants(),
            core.phones(),
            core.messageWebhooks(),
            core.urlGuard(),
            core.mobileCs(),
            core.sends(),
            core.timestamps(),
            core.sessions(),
            remoteMedia));
    tables.add(new PartnerRoutes(core.tenants(), core.bots(), core.messages(), core.phones()));
    tables.add(
        new PushV1Routes(
            core.tenants(), core.mobileCs(), core.phones(), core.sends(), settings.pushAppIds()));
    tables.add(
        new PushV2Routes(
            core.tenants(),
            core.mobileCs(),
            core.phones(),
            core.sends(),
            core.schedules(),
            remoteMedia,
            core.ids(),
            core.timestamps()));
    tables.add(
        new CrmRoutes(core.tenants(), core.phones(), core.sends(), remoteMedia, core.contacts()));
    tables.add(
        new MultiAgentRoutes(
            core.tenants(),
            core.phones(),
            core.sends(),
            remoteMedia,
            core.mediaFiles(),
            core.timestamps(),
            settings.media().maxKb(),
            core.contacts()));
    tables.add(
        new io.kurir.api.graph.GraphRoutes(
            core.tenants(),
            core.sends(),
            core.phones(),
            new io.kurir.media.UploadedMedia(
                core.db(),
                core.ids(),
                core.clock(),
                core.mediaFiles(),
                settings.media().maxBytes(),
                settings.media().uploadQuotaBytes(),
                settings.media().keepFor()),
            new io.kurir.media.ReceivedMedia(core.db()),
            settings.publicUrlIfSet(),
            core.clock(),
            actions));
    // Drivers declare their routes as data; the HTTP layer serves them, guarded here: the control
    // routes take the admin token, except in the demo, which is open by design.
    DriverRoutesContext routesContext =
        new DriverRoutesContext(
            new TenantDeviceLookup(core.tenants()), core.phones(), core.timestamps());
    Optional<String> controlToken = settings.demo() ? Optional.empty() : settings.adminTokenIfSet();
    for (DriverFactory f : catalog.factories()) {
      core.drivers()
          .named(f.name())
          .ifPresent(
              d ->
                  f.routes(d, routesContext)
                      .forEach(r -> tables.add(new DriverRouteTable(r, controlToken))));
    }
    tables.add(
        new V1Routes(
            core.tenants(),
            new MessageHistories(core.db()),
            core.sessions().states(),
            core.sends(),
            core.phones(),
            core.contacts(),
            remoteMedia,
            core.events(),
            core.webhookSubscriptions(),
            core.clock(),
            core.drivers(),
            chats,
            core.contactBook(),
            actions,
            core.campaigns()));
    tables.add(new ApiDocsRoutes(Gateway.VERSION));
    return tables;
  }

  /** Revoke, edit, read marks and typing, recorded on the event log. */
  private static io.kurir.message.MessageActions messageActions(Core core) {
    return new io.kurir.message.MessageActions(
        core.db(),
        core.messages(),
        core.tenants(),
        core.drivers(),
        core.ids(),
        core.clock(),
        core.events()::append,
        core.events()::committed);
  }

  /** Health, mounted after any extra tables a caller gave, as before. */
  static RouteTable health(Core core) {
    return new HealthRoutes(new Health(core.db(), core.drivers()));
  }

  /** The phone of the first loaded driver over a simulated network, for the console's button. */
  private static Optional<ConsoleDeps.SimulatedPhone> simulatedPhone(Core core) {
    return core.drivers().all().stream()
        .filter(SimulatedPhones.class::isInstance)
        .findFirst()
        .map(
            d ->
                new ConsoleDeps.SimulatedPhone(
                    d.name(), device -> ((SimulatedPhones) d).scanCurrentCode(device.ref())));
  }
}
