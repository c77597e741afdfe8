package io.kurir.driver.cloud;

import io.kurir.testing.OnPostgreSQL;

/** {@link CloudRestartTest} on PostgreSQL. */
@OnPostgreSQL
class CloudRestartPostgresTest extends CloudRestartTest {}
