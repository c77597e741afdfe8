package io.kurir.webhook;

import io.kurir.testing.OnPostgreSQL;

/** {@link WebhookOutboxLoopTest} on PostgreSQL. */
@OnPostgreSQL
class WebhookOutboxLoopPostgresTest extends WebhookOutboxLoopTest {}
