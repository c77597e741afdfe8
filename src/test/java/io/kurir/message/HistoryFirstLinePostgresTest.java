package io.kurir.message;

import io.kurir.testing.OnPostgreSQL;

/** {@link HistoryFirstLineTest} on PostgreSQL. */
@OnPostgreSQL
class HistoryFirstLinePostgresTest extends HistoryFirstLineTest {}
