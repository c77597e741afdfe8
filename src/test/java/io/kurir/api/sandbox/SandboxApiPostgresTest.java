package io.kurir.api.sandbox;

import io.kurir.testing.OnPostgreSQL;

/** {@link SandboxApiTest} on PostgreSQL. */
@OnPostgreSQL
class SandboxApiPostgresTest extends SandboxApiTest {}
