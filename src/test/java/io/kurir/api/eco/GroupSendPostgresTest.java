package io.kurir.api.eco;

import io.kurir.testing.OnPostgreSQL;

/** {@link GroupSendTest} on PostgreSQL. */
@OnPostgreSQL
class GroupSendPostgresTest extends GroupSendTest {}
