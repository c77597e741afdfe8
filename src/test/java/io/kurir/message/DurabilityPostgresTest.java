package io.kurir.message;

import io.kurir.testing.OnPostgreSQL;

/** {@link DurabilityTest} on PostgreSQL. */
@OnPostgreSQL
class DurabilityPostgresTest extends DurabilityTest {}
