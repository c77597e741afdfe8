package io.kurir.message;

import io.kurir.testing.OnPostgreSQL;

/** {@link FaultySenderTest} on PostgreSQL. */
@OnPostgreSQL
class FaultySenderPostgresTest extends FaultySenderTest {}
