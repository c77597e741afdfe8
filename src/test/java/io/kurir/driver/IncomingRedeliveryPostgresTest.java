package io.kurir.driver;

import io.kurir.testing.OnPostgreSQL;

/** {@link IncomingRedeliveryTest} on PostgreSQL. */
@OnPostgreSQL
class IncomingRedeliveryPostgresTest extends IncomingRedeliveryTest {}
