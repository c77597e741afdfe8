package io.kurir.message;

import io.kurir.testing.OnPostgreSQL;

/** {@link QueueRacesTest} on PostgreSQL. */
@OnPostgreSQL
class QueueRacesPostgresTest extends QueueRacesTest {}
