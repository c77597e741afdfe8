package io.kurir.api.eco;

import io.kurir.testing.OnPostgreSQL;

/** {@link AsyncAndLookupTest} on PostgreSQL. */
@OnPostgreSQL
class AsyncAndLookupPostgresTest extends AsyncAndLookupTest {}
