package io.kurir.api.console;

import io.kurir.testing.OnPostgreSQL;

/**
 * {@link ConsoleSignInTest} on PostgreSQL: sessions in its table, and the dashboard's counts
 * (messages, webhook deliveries, schedules) in its SQL.
 */
@OnPostgreSQL
class ConsoleSignInPostgresTest extends ConsoleSignInTest {}
