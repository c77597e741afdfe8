package io.kurir.api.v1;

import io.kurir.testing.OnPostgreSQL;

/** {@link V1ContactsTest} on PostgreSQL. */
@OnPostgreSQL
class V1ContactsPostgresTest extends V1ContactsTest {}
