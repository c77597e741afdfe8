package io.kurir.api.admin;

import io.kurir.testing.OnPostgreSQL;

/** {@link AdminApiTest} on PostgreSQL. */
@OnPostgreSQL
class AdminApiPostgresTest extends AdminApiTest {}
