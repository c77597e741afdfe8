package io.kurir.message;

import io.kurir.store.IdGenerator;
import io.kurir.tenant.Device;
import io.kurir.testing.CoreNode;
import io.kurir.testing.ScriptedDriver;
import io.kurir.time.Timestamps;
import io.kurir.webhook.Events;
import io.kurir.webhook.MessageWebhooks;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;

/**
 * A node with one device, switched off so that no sender claims what a test stores (its sender,
 * started when the device was made, may not have paused yet, but a claim looks at the committed
 * switch-off); the event log; and message stores whose hook makes a status event of every change,
 * as the gateway's does.
 */
record StoresWithEvents(CoreNode node, Device device, Events events, MessageStores stores) {
  static StoresWithEvents open(Path file, Clock clock, String number) {
    CoreNode node = CoreNode.start(file, 0, clock, new ScriptedDriver("scripted", false));
    Device device = node.newDevice(number);
    node.tenants().setDeviceDisabled(device.id(), true);
    IdGenerator ids = new IdGenerator(clock, 0);
    Events events = new Events(node.db(), ids, clock, Duration.ofDays(7), () -> {});
    StatusHook hook =
        new MessageWebhooks(
            node.db(),
            ids,
            clock,
            new Timestamps(ZoneId.of("Asia/Jakarta")),
            () -> {},
            events,
            "127.0.0.1",
            () -> 0);
    return new StoresWithEvents(node, device, events, MessageStores.open(node.db(), hook));
  }
}
