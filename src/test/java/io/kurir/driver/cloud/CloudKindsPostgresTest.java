package io.kurir.driver.cloud;

import io.kurir.testing.OnPostgreSQL;

/** {@link CloudKindsTest} on PostgreSQL: content kept and read back, replies by network id. */
@OnPostgreSQL
class CloudKindsPostgresTest extends CloudKindsTest {}
