package io.kurir.driver;

import io.kurir.testing.OnPostgreSQL;

/** {@link SendOutcomesAndReceiptsTest} on PostgreSQL. */
@OnPostgreSQL
class SendOutcomesAndReceiptsPostgresTest extends SendOutcomesAndReceiptsTest {}
