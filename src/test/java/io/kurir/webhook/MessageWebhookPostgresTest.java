package io.kurir.webhook;

import io.kurir.testing.OnPostgreSQL;

/** {@link MessageWebhookTest} on PostgreSQL. */
@OnPostgreSQL
class MessageWebhookPostgresTest extends MessageWebhookTest {}
