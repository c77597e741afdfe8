package io.kurir.webhook;

import io.kurir.testing.OnPostgreSQL;

/** {@link WebhookOutboxTest} on PostgreSQL. */
@OnPostgreSQL
class WebhookOutboxPostgresTest extends WebhookOutboxTest {}
