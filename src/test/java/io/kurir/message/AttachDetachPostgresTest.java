package io.kurir.message;

import io.kurir.testing.OnPostgreSQL;

/** {@link AttachDetachTest} on PostgreSQL. */
@OnPostgreSQL
class AttachDetachPostgresTest extends AttachDetachTest {}
