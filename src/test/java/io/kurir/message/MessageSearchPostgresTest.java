package io.kurir.message;

import io.kurir.testing.OnPostgreSQL;

/** {@link MessageSearchTest} on PostgreSQL. */
@OnPostgreSQL
class MessageSearchPostgresTest extends MessageSearchTest {}
