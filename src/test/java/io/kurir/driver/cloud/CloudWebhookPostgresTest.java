package io.kurir.driver.cloud;

import io.kurir.testing.OnPostgreSQL;

/** {@link CloudWebhookTest} on PostgreSQL. */
@OnPostgreSQL
class CloudWebhookPostgresTest extends CloudWebhookTest {}
