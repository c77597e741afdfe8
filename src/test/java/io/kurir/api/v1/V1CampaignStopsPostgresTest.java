package io.kurir.api.v1;

import io.kurir.testing.OnPostgreSQL;

/** {@link V1CampaignStopsTest} on PostgreSQL. */
@OnPostgreSQL
class V1CampaignStopsPostgresTest extends V1CampaignStopsTest {}
