package io.kurir.driver;

import io.kurir.testing.OnPostgreSQL;

/** {@link DeviceSessionStoreTest} on PostgreSQL. */
@OnPostgreSQL
class DeviceSessionStorePostgresTest extends DeviceSessionStoreTest {}
