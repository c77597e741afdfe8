package io.kurir.api.graph;

import io.kurir.testing.OnPostgreSQL;

/** {@link GraphDoorTest} on PostgreSQL: the uploads' rows, found by id, deleted, swept. */
@OnPostgreSQL
class GraphDoorPostgresTest extends GraphDoorTest {}
