package io.kurir.metrics;

import io.kurir.testing.OnPostgreSQL;

/** {@link MetricsTest} on PostgreSQL: the gauges' queries and the pool's metrics there. */
@OnPostgreSQL
class MetricsPostgresTest extends MetricsTest {}
