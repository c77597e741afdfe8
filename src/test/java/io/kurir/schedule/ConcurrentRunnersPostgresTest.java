package io.kurir.schedule;

import io.kurir.testing.OnPostgreSQL;

/** {@link ConcurrentRunnersTest} on PostgreSQL. */
@OnPostgreSQL
class ConcurrentRunnersPostgresTest extends ConcurrentRunnersTest {}
