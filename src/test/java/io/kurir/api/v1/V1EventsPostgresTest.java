package io.kurir.api.v1;

import io.kurir.testing.OnPostgreSQL;

/** {@link V1EventsTest} on PostgreSQL. */
@OnPostgreSQL
class V1EventsPostgresTest extends V1EventsTest {}
