package io.kurir.regressions;

import io.kurir.testing.OnPostgreSQL;

/** {@link WebhookBotAndCancelRegressionsTest} on PostgreSQL. */
@OnPostgreSQL
class WebhookBotAndCancelRegressionsPostgresTest extends WebhookBotAndCancelRegressionsTest {}
