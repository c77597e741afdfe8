package io.kurir.contact;

import io.kurir.testing.OnPostgreSQL;

/** {@link HiddenSenderTest} on PostgreSQL. */
@OnPostgreSQL
class HiddenSenderPostgresTest extends HiddenSenderTest {}
