package io.kurir.api.account;

import io.kurir.testing.OnPostgreSQL;

/** {@link AccountApiTest} on PostgreSQL. */
@OnPostgreSQL
class AccountApiPostgresTest extends AccountApiTest {}
