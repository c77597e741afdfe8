package io.kurir.api.v1;

import io.kurir.testing.OnPostgreSQL;

/** {@link V1ChatsTest} on PostgreSQL. */
@OnPostgreSQL
class V1ChatsPostgresTest extends V1ChatsTest {}
