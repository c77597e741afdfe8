package io.kurir.console;

import io.kurir.testing.OnPostgreSQL;

/** {@link ConsoleSessionsTest} on PostgreSQL: two nodes sharing one server. */
@OnPostgreSQL
class ConsoleSessionsPostgresTest extends ConsoleSessionsTest {}
