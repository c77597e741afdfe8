-- Scheduled messages (/api/scheduler). A schedule waits until due_at; the runner then hands it to
-- the message pipeline in the same transaction that moves it to 'handed' and records message_id,
-- so it is sent exactly once. Schedules with an image or file are first 'claimed' (with a token
-- and an expiry) while their URL is fetched: a claim left by a node that died expires and the
-- schedule waits again. States: waiting, claimed, handed, failed, removed.
CREATE TABLE schedule (
  id ${id_pk},
  device_id BIGINT NOT NULL REFERENCES device (id),
  api_type TEXT NOT NULL,
  body TEXT NOT NULL,
  target TEXT NOT NULL,
  url TEXT,
  filename TEXT,
  due_at BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  state TEXT NOT NULL,
  reason TEXT,
  message_id BIGINT,
  claim_token BIGINT,
  claimed_by INTEGER,
  claim_expires BIGINT,
  status_at BIGINT NOT NULL
);

-- The runner reads what is due and the next due time; the per-minute rule counts by device.
CREATE INDEX schedule_due ON schedule (state, due_at);
CREATE INDEX schedule_device_due ON schedule (device_id, due_at);
