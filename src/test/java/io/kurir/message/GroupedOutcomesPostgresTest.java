package io.kurir.message;

import io.kurir.testing.OnPostgreSQL;

/** {@link GroupedOutcomesTest} on PostgreSQL. */
@OnPostgreSQL
class GroupedOutcomesPostgresTest extends GroupedOutcomesTest {}
