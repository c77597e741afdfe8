package io.kurir.message;

import io.kurir.testing.OnPostgreSQL;

/** {@link ClaimWindowStatementTest} on PostgreSQL, where the claim skips locked rows. */
@OnPostgreSQL
class ClaimWindowStatementPostgresTest extends ClaimWindowStatementTest {}
