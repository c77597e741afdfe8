package io.kurir.api.eco;

import io.kurir.testing.OnPostgreSQL;

/** {@link SendMessageTest} on PostgreSQL. */
@OnPostgreSQL
class SendMessagePostgresTest extends SendMessageTest {}
