-- Every state a message has been in, with its time and reason: what reports, lookups, the
-- Admin API and (later) webhooks all read, so they tell the same story.
CREATE TABLE message_event (
  message_id BIGINT NOT NULL,
  state TEXT NOT NULL,
  reason TEXT,
  at BIGINT NOT NULL
);

CREATE INDEX message_event_message ON message_event (message_id, at);
