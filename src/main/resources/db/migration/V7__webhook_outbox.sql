-- Webhooks: every license signs its deliveries with its own secret; a device may have a
-- device-status webhook; every delivery waits in the outbox, written in the same transaction as
-- the change it reports, until the receiver takes it (or it is given up).
ALTER TABLE license ADD COLUMN webhook_secret TEXT;
UPDATE license SET webhook_secret = ${random_secret} WHERE webhook_secret IS NULL;
ALTER TABLE device ADD COLUMN status_webhook_url TEXT;

CREATE TABLE webhook_delivery (
  id ${id_pk},
  device_id BIGINT NOT NULL REFERENCES device (id),
  url TEXT NOT NULL,
  event TEXT NOT NULL,
  payload TEXT NOT NULL,
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at BIGINT NOT NULL,
  last_error TEXT,
  created_at BIGINT NOT NULL,
  finished_at BIGINT
);

CREATE INDEX webhook_delivery_due ON webhook_delivery (state, device_id, id);
