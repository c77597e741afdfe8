package io.kurir.health;

import io.kurir.testing.OnPostgreSQL;

/** {@link HealthTest} on PostgreSQL. */
@OnPostgreSQL
class HealthPostgresTest extends HealthTest {}
