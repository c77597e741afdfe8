package io.kurir.schedule;

import io.kurir.testing.OnPostgreSQL;

/** {@link SchedulerTest} on PostgreSQL. */
@OnPostgreSQL
class SchedulerPostgresTest extends SchedulerTest {}
