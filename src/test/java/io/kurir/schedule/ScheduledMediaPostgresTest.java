package io.kurir.schedule;

import io.kurir.testing.OnPostgreSQL;

/** {@link ScheduledMediaTest} on PostgreSQL. */
@OnPostgreSQL
class ScheduledMediaPostgresTest extends ScheduledMediaTest {}
