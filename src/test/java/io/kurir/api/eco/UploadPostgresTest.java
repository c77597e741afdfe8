package io.kurir.api.eco;

import io.kurir.testing.OnPostgreSQL;

/** {@link UploadTest} on PostgreSQL. */
@OnPostgreSQL
class UploadPostgresTest extends UploadTest {}
