package io.kurir;

import io.kurir.bot.Bots;
import io.kurir.bot.IncomingMessages;
import io.kurir.campaign.CampaignRunner;
import io.kurir.campaign.CampaignStops;
import io.kurir.campaign.Campaigns;
import io.kurir.config.Settings;
import io.kurir.contact.ContactIdentities;
import io.kurir.contactbook.ContactBook;
import io.kurir.contactbook.OptOutWords;
import io.kurir.device.AccountSignals;
import io.kurir.device.DeviceHolds;
import io.kurir.device.DeviceStates;
import io.kurir.device.QueueHolds;
import io.kurir.device.SenderTroubleAsState;
import io.kurir.device.SessionEvents;
import io.kurir.device.Sessions;
import io.kurir.driver.DeviceConfig;
import io.kurir.driver.DriverCatalog;
import io.kurir.driver.Drivers;
import io.kurir.media.CallerMedia;
import io.kurir.media.MediaFiles;
import io.kurir.media.MediaSweep;
import io.kurir.media.SafeFetcher;
import io.kurir.message.Messages;
import io.kurir.message.RetryPolicy;
import io.kurir.message.Sends;
import io.kurir.metrics.GatewayMetrics;
import io.kurir.phone.PhoneNumbers;
import io.kurir.schedule.ScheduleRunner;
import io.kurir.schedule.Schedules;
import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.tenant.DeviceDrivers;
import io.kurir.tenant.MobileCs;
import io.kurir.tenant.Tenants;
import io.kurir.time.Timestamps;
import io.kurir.webhook.Events;
import io.kurir.webhook.MessageWebhooks;
import io.kurir.webhook.WebhookOutbox;
import io.kurir.webhook.WebhookSubscriptions;
import java.time.Clock;
import java.util.function.IntSupplier;

/**
 * The core of one gateway as one record of services: what the API families' routes are built from
 * ({@link FamilyRoutes}) and what {@link Gateway} starts and stops. No HTTP here.
 *
 * <p>{@link #open} builds the services in dependency order and pushes each one that holds a thread
 * or a resource onto the gateway's {@link Closers}, so that a start that fails half way and a
 * normal shutdown stop them in the same, reverse order.
 */
record Core(
    Settings settings,
    Clock clock,
    Database db,
    GatewayMetrics metrics,
    IdGenerator ids,
    PhoneNumbers phones,
    Timestamps timestamps,
    SafeFetcher urlGuard,
    MediaFiles mediaFiles,
    MediaSweep mediaSweep,
    Tenants tenants,
    ContactIdentities contacts,
    WebhookOutbox outbox,
    Drivers drivers,
    MessageWebhooks messageWebhooks,
    CallerMedia callerMedia,
    Messages messages,
    Sends sends,
    Bots bots,
    MobileCs mobileCs,
    DeviceStates deviceStates,
    QueueHolds queueHolds,
    ScheduleRunner scheduler,
    Schedules schedules,
    Sessions sessions,
    Events events,
    WebhookSubscriptions webhookSubscriptions,
    ContactBook contactBook,
    CampaignRunner campaignRunner,
    Campaigns campaigns) {

  /**
   * Opens the core on {@code db}: every service built, the drivers started and their devices
   * reconciled, but nothing sent yet ({@link #startSending}) so that a gateway that cannot serve
   * sends nothing an earlier run left pending.
   *
   * @param port the port the gateway serves on, for the webhook payloads that name it
   */
  static Core open(
      Settings settings,
      Clock clock,
      DriverCatalog catalog,
      Database db,
      IntSupplier port,
      Closers closers) {
    GatewayMetrics metrics =
        closers.push("metrics", new GatewayMetrics(db, clock, settings.metrics().gaugesFreshFor()));
    db.writes().observeCommits(metrics::committed);
    IdGenerator ids = new IdGenerator(clock, settings.nodeId());
    PhoneNumbers phones = new PhoneNumbers(settings.defaultRegion());
    Timestamps timestamps = new Timestamps(settings.zone());
    // One guard for every caller-given URL (media and webhook targets): one connection pool.
    SafeFetcher urlGuard = new SafeFetcher(settings.media(), clock);
    // One instance: its lock orders keeping a file against the sweep's removing it.
    MediaFiles mediaFiles = new MediaFiles(settings.dataDir(), clock);
    MediaSweep mediaSweep = new MediaSweep(mediaFiles, db, clock, settings.media().keepFor());
    Tenants tenants =
        new Tenants(db, ids, clock, settings.zone(), phones, DeviceDrivers.of(catalog));
    ContactIdentities contacts = new ContactIdentities(db, clock);
    // The outbox stops after the drivers: a delivery in progress is recorded, the rest wait in the
    // database.
    WebhookOutbox outbox =
        closers.push(
            "webhook outbox",
            new WebhookOutbox(
                db,
                clock,
                urlGuard,
                settings.webhooks().retryFor(),
                settings.webhooks().timeout(),
                settings.nodeId(),
                metrics::webhookAttempt));
    outbox.start();
    // The event log: SSE readers waiting on it end when it closes.
    Events events =
        closers.push(
            "event log",
            new Events(db, ids, clock, settings.webhooks().eventsKeepFor(), outbox::wake));
    events.start();
    // A driver that made its network (the sandbox's) closes it.
    Drivers drivers =
        closers.push(
            "drivers",
            Drivers.load(
                catalog,
                settings::driver,
                id -> new DeviceConfig(tenants.deviceConfig(id)),
                db,
                clock,
                settings.dataDir(),
                settings.callbackUrlIfSet(),
                contacts));
    MessageWebhooks messageWebhooks =
        new MessageWebhooks(
            db,
            ids,
            clock,
            timestamps,
            outbox::wake,
            events,
            ServerAddress.of(settings.host()),
            port);
    CallerMedia callerMedia = new CallerMedia(urlGuard, mediaFiles);
    DeviceStates deviceStates = new DeviceStates(db, clock, ids, timestamps, outbox::wake, events);
    DeviceHolds deviceHolds = new DeviceHolds(db, clock);
    // Senders finish the send in progress and record it.
    Messages messages =
        closers.push(
            "message senders",
            new Messages(
                db,
                ids,
                clock,
                drivers,
                tenants,
                new RetryPolicy(settings.retryBackoff(), settings.maxRetries()),
                messageWebhooks,
                callerMedia,
                "node-" + settings.nodeId(),
                new Messages.Wiring(
                    metrics,
                    new SenderTroubleAsState(deviceStates),
                    contacts,
                    deviceHolds::isHeld,
                    settings.syncTimeout())));
    tenants.onDeviceChanged(messages::deviceChanged);
    tenants.onDeviceDeleted(messages::deviceDeleted);
    Bots bots = new Bots(db, ids, clock);
    ContactBook contactBook =
        new ContactBook(db, ids, clock, phones, new OptOutWords(settings.contacts().optOutWords()));
    MobileCs mobileCs = new MobileCs(db, ids, clock, tenants);
    IncomingMessages incoming =
        new IncomingMessages(
            db,
            ids,
            clock,
            tenants,
            bots,
            messages,
            messageWebhooks,
            contacts,
            contactBook,
            settings.bots().answerInGroups());
    QueueHolds queueHolds = new QueueHolds(deviceHolds, deviceStates, messages, drivers);
    // A held device resumes when its configuration changes (a new token, a fixed number id).
    tenants.onDeviceChanged(d -> queueHolds.resume(d, "its configuration changed"));
    AccountSignals accountSignals = new AccountSignals(db, deviceStates, clock);
    drivers.start(
        new SessionEvents(messages, deviceStates, incoming::received, queueHolds, accountSignals));
    // Nothing new is handed to the senders once it stops.
    ScheduleRunner scheduler =
        closers.push(
            "scheduler",
            new ScheduleRunner(
                db,
                messages,
                tenants,
                urlGuard,
                mediaFiles,
                clock,
                settings.nodeId(),
                settings.media().maxKb(),
                metrics::scheduleLateness));
    Schedules schedules = new Schedules(db, ids, clock, urlGuard, messages, scheduler::wake);
    tenants.onDeviceDeleted(schedules::deviceDeleted);
    Sessions sessions = new Sessions(drivers, deviceStates, queueHolds);
    Sends sends = new Sends(messages, settings.syncTimeout());
    // Campaigns stop feeding the queue before the senders stop.
    CampaignRunner campaignRunner =
        closers.push(
            "campaigns",
            new CampaignRunner(
                db,
                messages,
                tenants,
                contactBook,
                drivers,
                clock,
                settings.zone(),
                settings.safeSending(),
                new CampaignStops(
                    db, messages, deviceStates, deviceHolds, accountSignals, events, clock)));
    Campaigns campaigns =
        new Campaigns(
            db, ids, clock, tenants, phones, messages, drivers, contactBook, campaignRunner::wake);
    return new Core(
        settings,
        clock,
        db,
        metrics,
        ids,
        phones,
        timestamps,
        urlGuard,
        mediaFiles,
        mediaSweep,
        tenants,
        contacts,
        outbox,
        drivers,
        messageWebhooks,
        callerMedia,
        messages,
        sends,
        bots,
        mobileCs,
        deviceStates,
        queueHolds,
        scheduler,
        schedules,
        sessions,
        events,
        new WebhookSubscriptions(db, ids, clock, urlGuard),
        contactBook,
        campaignRunner,
        campaigns);
  }

  /**
   * Starts sending: the senders resume what an earlier run left pending, then the scheduler hands
   * over what is due (its own accept queues it), then the media sweep runs. Called only once the
   * gateway serves.
   */
  void startSending(Closers closers) {
    messages.resume();
    scheduler.start();
    campaignRunner.start();
    // The sweep stops first: it removes nothing more, and a sweep under way ends with the database.
    closers.push("media sweep", mediaSweep);
    mediaSweep.start();
  }
}
