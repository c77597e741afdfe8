package io.kurir.api.v1;

import io.kurir.testing.OnPostgreSQL;

/** {@link V1MetaWebhooksTest} on PostgreSQL. */
@OnPostgreSQL
class V1MetaWebhooksPostgresTest extends V1MetaWebhooksTest {}
