-- The webhook outbox claims a delivery before it calls the receiver: a guarded UPDATE sets
-- claim_token (random, one per claim), claimed_by (the node) and claim_until (when a claim left by
-- a node that died may be taken again); only the holder of the token records the outcome, and
-- every outcome clears the claim. So one event is never being delivered twice at once.
ALTER TABLE webhook_delivery ADD COLUMN claim_token BIGINT;
ALTER TABLE webhook_delivery ADD COLUMN claimed_by INTEGER;
ALTER TABLE webhook_delivery ADD COLUMN claim_until BIGINT;

-- Order: an event keeps its place ahead of the later events to its URL until it has been tried,
-- and after its first failed attempt until held_until (set then, cleared when it ends); then the
-- rest go on without it. The statuses of one message (message_id) always go in order. Events
-- already being retried hold nothing.
ALTER TABLE webhook_delivery ADD COLUMN held_until BIGINT;
ALTER TABLE webhook_delivery ADD COLUMN message_id BIGINT;
UPDATE webhook_delivery SET held_until = 0 WHERE state = 'pending' AND attempts > 0;

-- What receivers order and deduplicate by: seq counts the events of one kind of one device
-- (1, 2, 3… in commit order; events stored before this version have none), event_at is when the
-- event happened (created_at restarts when an operator replays a delivery).
ALTER TABLE webhook_delivery ADD COLUMN seq BIGINT;
ALTER TABLE webhook_delivery ADD COLUMN event_at BIGINT;
UPDATE webhook_delivery SET event_at = created_at;

CREATE TABLE webhook_sequence (
  device_id BIGINT NOT NULL REFERENCES device (id),
  event TEXT NOT NULL,
  last_seq BIGINT NOT NULL,
  PRIMARY KEY (device_id, event)
);

-- The outbox skips from one device and URL with pending deliveries to the next, and looks at the
-- first few of each; operators list a state newest first.
DROP INDEX webhook_delivery_due;
DROP INDEX webhook_delivery_order;
CREATE INDEX webhook_delivery_line ON webhook_delivery (state, device_id, url, id);
CREATE INDEX webhook_delivery_state ON webhook_delivery (state, id);
-- Few rows each: claims under way, deliveries that failed and wait, statuses of messages.
CREATE INDEX webhook_delivery_claimed ON webhook_delivery (device_id, url, claim_until)
  WHERE claim_until IS NOT NULL;
CREATE INDEX webhook_delivery_held ON webhook_delivery (held_until)
  WHERE held_until IS NOT NULL;
CREATE INDEX webhook_delivery_message ON webhook_delivery (message_id, state, id)
  WHERE message_id IS NOT NULL;
