package io.kurir.message;

import io.kurir.testing.OnPostgreSQL;

/** {@link ReceiptGroupsTest} on PostgreSQL. */
@OnPostgreSQL
class ReceiptGroupsPostgresTest extends ReceiptGroupsTest {}
