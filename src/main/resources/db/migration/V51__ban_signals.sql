-- Safe sending's automatic stop (issue 30, item 3).
-- A campaign's latest settled messages on one device are read on each look at it (the failure
-- surge: docs/decisions.md, "Safe sending: automatic stop"): by device and time handed, so that the
-- read walks back from the newest and stops after a few rows, however long the campaign.
CREATE INDEX campaign_recipient_campaign_device ON campaign_recipient (campaign_id, device_id, handed_at);

-- What an engine reported of an account's limits that a running campaign must hear of: WhatsApp's
-- message capping reaching CAPPED, its reach-out time lock (error 463). kind: message_capped,
-- reach_out_locked; reason: the engine's words for people. One row per report; a campaign looks
-- only at those since it last started or resumed. Kept 30 days.
CREATE TABLE device_signal (
  device_id BIGINT NOT NULL,
  kind TEXT NOT NULL,
  reason TEXT NOT NULL,
  at BIGINT NOT NULL
);

CREATE INDEX device_signal_device ON device_signal (device_id, at);
