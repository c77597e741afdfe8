package io.kurir.api.eco;

import io.kurir.testing.OnPostgreSQL;

/** {@link DeviceSessionTest} on PostgreSQL. */
@OnPostgreSQL
class DeviceSessionPostgresTest extends DeviceSessionTest {}
