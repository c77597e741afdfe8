package io.kurir.api.v1;

import io.kurir.testing.OnPostgreSQL;

/** {@link V1ActionsTest} on PostgreSQL. */
@OnPostgreSQL
class V1ActionsPostgresTest extends V1ActionsTest {}
