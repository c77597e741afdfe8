package io.kurir.schedule;

import io.kurir.testing.OnPostgreSQL;

/** {@link ScheduleEdgeCasesTest} on PostgreSQL. */
@OnPostgreSQL
class ScheduleEdgeCasesPostgresTest extends ScheduleEdgeCasesTest {}
