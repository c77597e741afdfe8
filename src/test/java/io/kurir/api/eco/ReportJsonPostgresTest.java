package io.kurir.api.eco;

import io.kurir.testing.OnPostgreSQL;

/** {@link ReportJsonTest} on PostgreSQL. */
@OnPostgreSQL
class ReportJsonPostgresTest extends ReportJsonTest {}
