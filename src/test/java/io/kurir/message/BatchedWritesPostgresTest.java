package io.kurir.message;

import io.kurir.testing.OnPostgreSQL;

/** {@link BatchedWritesTest} on PostgreSQL. */
@OnPostgreSQL
class BatchedWritesPostgresTest extends BatchedWritesTest {}
