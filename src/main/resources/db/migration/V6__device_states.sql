-- The session state of each device (none, online, offline, refresh_it, failed) and every change
-- of it with its time and reason: what qr_status and info answer, and what device-status
-- webhooks will deliver.
ALTER TABLE device ADD COLUMN state TEXT NOT NULL DEFAULT 'none';

CREATE TABLE device_event (
  device_id BIGINT NOT NULL REFERENCES device (id),
  old_state TEXT NOT NULL,
  new_state TEXT NOT NULL,
  reason TEXT,
  at BIGINT NOT NULL
);

CREATE INDEX device_event_device ON device_event (device_id, at);
