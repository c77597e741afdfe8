-- Kurir's own event log (issue 29, item 5): one ordered sequence of events per license (message
-- received, message status, device status), written in the transaction of the change it reports.
-- The SSE stream and the pull API (GET /v1/events) read it by sequence; webhook subscriptions get
-- their matching events as deliveries of the webhook outbox (webhook_delivery.subscription_id).
-- Events older than events.keep-for are deleted; event_sequence keeps each license's last number,
-- so numbers are never given twice even when every event has been deleted.
CREATE TABLE event (
  license_id BIGINT NOT NULL REFERENCES license (id),
  seq BIGINT NOT NULL,
  device_id BIGINT NOT NULL,
  type TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (license_id, seq)
);

CREATE INDEX event_device ON event (license_id, device_id, seq);
CREATE INDEX event_created ON event (created_at);

CREATE TABLE event_sequence (
  license_id BIGINT NOT NULL PRIMARY KEY REFERENCES license (id),
  last_seq BIGINT NOT NULL
);

-- A license's webhook subscriptions (POST /v1/webhooks): a URL, the event types it wants
-- (comma-separated) and its Standard Webhooks secret (whsec_..., stored sealed). A removed one
-- keeps its row (deleted_at set) so that its failed deliveries stay readable.
CREATE TABLE webhook_subscription (
  id BIGINT NOT NULL PRIMARY KEY,
  license_id BIGINT NOT NULL REFERENCES license (id),
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  secret TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  deleted_at BIGINT
);

CREATE INDEX webhook_subscription_license ON webhook_subscription (license_id);

-- A delivery for a subscription (signed in the Standard Webhooks format with its secret) rather
-- than for one of a device's own webhook URLs (signed with the license's secret).
ALTER TABLE webhook_delivery ADD COLUMN subscription_id BIGINT;
