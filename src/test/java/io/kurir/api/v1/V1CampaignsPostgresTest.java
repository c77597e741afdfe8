package io.kurir.api.v1;

import io.kurir.testing.OnPostgreSQL;

/** {@link V1CampaignsTest} on PostgreSQL. */
@OnPostgreSQL
class V1CampaignsPostgresTest extends V1CampaignsTest {}
