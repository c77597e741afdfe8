package io.kurir.api.families;

import io.kurir.testing.OnPostgreSQL;

/** {@link SiblingFamiliesTest} on PostgreSQL. */
@OnPostgreSQL
class SiblingFamiliesPostgresTest extends SiblingFamiliesTest {}
