package io.kurir.driver.cloud;

import io.kurir.testing.OnPostgreSQL;

/** {@link CloudSendTest} on PostgreSQL. */
@OnPostgreSQL
class CloudSendPostgresTest extends CloudSendTest {}
