package io.kurir.api.console;

import io.kurir.bot.Bots;
import io.kurir.campaign.Campaigns;
import io.kurir.console.ConsoleSessions;
import io.kurir.console.SignInLimiter;
import io.kurir.contactbook.ContactBook;
import io.kurir.device.Sessions;
import io.kurir.media.SafeFetcher;
import io.kurir.message.Chats;
import io.kurir.message.MessageSearch;
import io.kurir.message.Messages;
import io.kurir.message.Sends;
import io.kurir.phone.PhoneNumbers;
import io.kurir.schedule.Schedules;
import io.kurir.tenant.Device;
import io.kurir.tenant.Tenants;
import io.kurir.time.Timestamps;
import io.kurir.webhook.MessageWebhooks;
import io.kurir.webhook.WebhookDeliveries;
import io.kurir.webhook.WebhookSubscriptions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * What the console's pages call: the core services it shows and changes, and its settings.
 *
 * @param simulatedPhone the phone of a simulated network that can scan a device's QR code, when a
 *     driver with one runs (the sandbox: the demo, tests)
 * @param webhookTargets the guard of the URLs Kurir may call (webhooks set from the console)
 * @param adminToken the operators' token; without one only customers can sign in
 * @param publicUrl the gateway's address as the internet reaches it (scripts, the Secure flag)
 * @param trustedProxies reverse proxies whose X-Forwarded-For names the client (sign-in limits)
 * @param chats the devices' conversations (the conversations page)
 * @param subscriptions the licenses' webhook subscriptions of Kurir API v1
 * @param campaigns the licenses' campaigns (the campaign pages)
 */
public record ConsoleDeps(
    Tenants tenants,
    Messages messages,
    Sends sends,
    MessageSearch search,
    Sessions sessions,
    MessageWebhooks messageWebhooks,
    WebhookDeliveries deliveries,
    Runnable outboxWake,
    SafeFetcher webhookTargets,
    Bots bots,
    Schedules schedules,
    PhoneNumbers phones,
    Timestamps timestamps,
    Clock clock,
    ConsoleSessions consoleSessions,
    SignInLimiter signInLimiter,
    Optional<SimulatedPhone> simulatedPhone,
    Duration webhookSecretOverlap,
    Optional<String> adminToken,
    Optional<String> publicUrl,
    List<String> trustedProxies,
    Chats chats,
    ContactBook contactBook,
    WebhookSubscriptions subscriptions,
    Campaigns campaigns) {

  /**
   * A simulated network's phone, which scans the QR code shown for a device of {@code driver} now:
   * {@code scan} answers true when that linked the device.
   */
  public record SimulatedPhone(String driver, Predicate<Device> scan) {
    boolean covers(Device device) {
      return device.driver().equals(driver);
    }
  }
}
