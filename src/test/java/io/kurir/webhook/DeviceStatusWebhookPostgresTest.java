package io.kurir.webhook;

import io.kurir.testing.OnPostgreSQL;

/** {@link DeviceStatusWebhookTest} on PostgreSQL. */
@OnPostgreSQL
class DeviceStatusWebhookPostgresTest extends DeviceStatusWebhookTest {}
