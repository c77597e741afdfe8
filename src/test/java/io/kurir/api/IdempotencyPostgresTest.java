package io.kurir.api;

import io.kurir.testing.OnPostgreSQL;

/** {@link IdempotencyTest} on PostgreSQL. */
@OnPostgreSQL
class IdempotencyPostgresTest extends IdempotencyTest {}
