-- The database is the send queue (issue 12).

-- The network's own id of a sent message: receipts that name it are mapped to Kurir's id.
ALTER TABLE message ADD COLUMN network_id TEXT;
CREATE INDEX message_network ON message (device_id, network_id);

-- A device's sender takes its next messages in this order: sync ones (a caller waits) first,
-- then by id. The message_pending index still serves "which devices have work".
CREATE INDEX message_queue ON message (device_id, state, sync, id);

-- Each device is sent for by one sender at a time: the holder of its lease, renewed while it
-- lives and taken over by another node once expired.
CREATE TABLE device_lease (
  device_id BIGINT PRIMARY KEY,
  owner TEXT NOT NULL,
  expires_at BIGINT NOT NULL
);

-- Receipts keyed by a network id that no message carries yet: the network answered faster than
-- the send's own outcome was committed. Matched, and removed, when it is.
CREATE TABLE early_receipt (
  device_id BIGINT NOT NULL,
  network_id TEXT NOT NULL,
  status TEXT NOT NULL,
  reason TEXT,
  at BIGINT NOT NULL,
  received_at BIGINT NOT NULL
);
CREATE INDEX early_receipt_network ON early_receipt (device_id, network_id);

-- Incoming messages carry the network's id: a redelivery is dropped, with its auto-reply and
-- its webhook. NULLs do not collide, for networks without ids.
ALTER TABLE inbound_message ADD COLUMN network_id TEXT;
ALTER TABLE inbound_message ADD COLUMN group_id TEXT;
ALTER TABLE inbound_message ADD COLUMN media_type TEXT;
ALTER TABLE inbound_message ADD COLUMN media_path TEXT;
CREATE UNIQUE INDEX inbound_network ON inbound_message (device_id, network_id);
