-- Idempotency keys (the Idempotency-Key header, or the idempotency_key field): per device, what
-- the first request with a key stored, so that a repeat answers the same ids and stores nothing.
-- fingerprint: SHA-256 (hex) of the normalised request, to refuse the same key on another request.
-- ids: what the first request answered, comma-separated, in its order (message ids, or a
-- schedule id). Kept at least 24 hours after created_at; older rows are pruned and ignored.
CREATE TABLE idempotency_key (
  device_id BIGINT NOT NULL REFERENCES device (id),
  idem_key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  ids TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (device_id, idem_key)
);

CREATE INDEX idempotency_key_created ON idempotency_key (created_at);
