-- A webhook subscription's format (issue 29, item 6): 'standard' (Kurir's event JSON signed in the
-- Standard Webhooks format) or 'meta' (the Cloud API's webhook payloads, signed
-- X-Hub-Signature-256 with the subscription's secret). Subscriptions made before it are standard.
ALTER TABLE webhook_subscription ADD COLUMN format TEXT NOT NULL DEFAULT 'standard';
