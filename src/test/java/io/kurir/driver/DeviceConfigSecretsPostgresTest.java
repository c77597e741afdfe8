package io.kurir.driver;

import io.kurir.testing.OnPostgreSQL;

/** {@link DeviceConfigSecretsTest} on PostgreSQL. */
@OnPostgreSQL
class DeviceConfigSecretsPostgresTest extends DeviceConfigSecretsTest {}
