package io.kurir.device;

import io.kurir.testing.OnPostgreSQL;

/** {@link LifecycleTest} on PostgreSQL. */
@OnPostgreSQL
class LifecyclePostgresTest extends LifecycleTest {}
