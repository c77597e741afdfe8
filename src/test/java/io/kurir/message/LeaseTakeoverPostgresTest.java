package io.kurir.message;

import io.kurir.testing.OnPostgreSQL;

/** {@link LeaseTakeoverTest} on PostgreSQL. */
@OnPostgreSQL
class LeaseTakeoverPostgresTest extends LeaseTakeoverTest {}
