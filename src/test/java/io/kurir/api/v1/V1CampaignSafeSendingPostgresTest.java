package io.kurir.api.v1;

import io.kurir.testing.OnPostgreSQL;

/** {@link V1CampaignSafeSendingTest} on PostgreSQL. */
@OnPostgreSQL
class V1CampaignSafeSendingPostgresTest extends V1CampaignSafeSendingTest {}
