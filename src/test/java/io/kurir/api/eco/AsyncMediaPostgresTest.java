package io.kurir.api.eco;

import io.kurir.testing.OnPostgreSQL;

/** {@link AsyncMediaTest} on PostgreSQL. */
@OnPostgreSQL
class AsyncMediaPostgresTest extends AsyncMediaTest {}
