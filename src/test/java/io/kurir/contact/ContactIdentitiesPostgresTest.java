package io.kurir.contact;

import io.kurir.testing.OnPostgreSQL;

/** {@link ContactIdentitiesTest} on PostgreSQL. */
@OnPostgreSQL
class ContactIdentitiesPostgresTest extends ContactIdentitiesTest {}
