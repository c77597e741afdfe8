package io.kurir.api.account;

import io.kurir.testing.OnPostgreSQL;

/** {@link LegacySendMessageTest} on PostgreSQL. */
@OnPostgreSQL
class LegacySendMessagePostgresTest extends LegacySendMessageTest {}
