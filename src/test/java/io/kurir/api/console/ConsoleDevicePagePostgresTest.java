package io.kurir.api.console;

import io.kurir.testing.OnPostgreSQL;

/** {@link ConsoleDevicePageTest} on PostgreSQL: a device's received messages read in its SQL. */
@OnPostgreSQL
class ConsoleDevicePagePostgresTest extends ConsoleDevicePageTest {}
