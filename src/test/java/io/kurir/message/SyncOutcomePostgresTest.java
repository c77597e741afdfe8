package io.kurir.message;

import io.kurir.testing.OnPostgreSQL;

/** {@link SyncOutcomeTest} on PostgreSQL. */
@OnPostgreSQL
class SyncOutcomePostgresTest extends SyncOutcomeTest {}
