package io.kurir.api.partner;

import io.kurir.testing.OnPostgreSQL;

/** {@link PartnerApiTest} on PostgreSQL. */
@OnPostgreSQL
class PartnerApiPostgresTest extends PartnerApiTest {}
