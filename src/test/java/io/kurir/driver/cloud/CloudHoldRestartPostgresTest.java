package io.kurir.driver.cloud;

import io.kurir.testing.OnPostgreSQL;

/** {@link CloudHoldRestartTest} on PostgreSQL. */
@OnPostgreSQL
class CloudHoldRestartPostgresTest extends CloudHoldRestartTest {}
