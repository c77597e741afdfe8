package io.kurir.device;

import io.kurir.testing.OnPostgreSQL;

/** {@link LinkedDevicesTest} on PostgreSQL. */
@OnPostgreSQL
class LinkedDevicesPostgresTest extends LinkedDevicesTest {}
