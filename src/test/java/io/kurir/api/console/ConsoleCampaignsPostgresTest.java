package io.kurir.api.console;

import io.kurir.testing.OnPostgreSQL;

/**
 * {@link ConsoleCampaignsTest} on PostgreSQL: a campaign's chart (CampaignStore's timeline) and the
 * dashboard's traffic per device and hour read in its SQL.
 */
@OnPostgreSQL
class ConsoleCampaignsPostgresTest extends ConsoleCampaignsTest {}
