-- Message webhooks (Account API /v2.0/webhook): per device, where incoming messages and the
-- status of sent messages are pushed.
ALTER TABLE device ADD COLUMN incoming_webhook_url TEXT;
ALTER TABLE device ADD COLUMN outgoing_webhook_url TEXT;

-- Which keyword rule an incoming message matched, and the auto-reply it got.
ALTER TABLE inbound_message ADD COLUMN keyword TEXT;
ALTER TABLE inbound_message ADD COLUMN reply_message_id BIGINT;

-- Keyword auto-replies of a license (Partner API add_bot / get_bot / delete_bot). `keyword` is
-- as given; `match_key` is its normalised form (lower case, trimmed, whitespace collapsed).
CREATE TABLE bot_rule (
  id ${id_pk},
  license_id BIGINT NOT NULL REFERENCES license (id),
  keyword TEXT NOT NULL,
  match_key TEXT NOT NULL,
  match_type TEXT NOT NULL,
  response TEXT NOT NULL,
  created_at BIGINT NOT NULL
);

CREATE INDEX bot_rule_license ON bot_rule (license_id, id);

-- Mobile CS entries: a customer-service handset (its push player id and handset id) tied to one
-- device of the license; the push families address handsets by these ids.
CREATE TABLE mobile_cs (
  id ${id_pk},
  license_id BIGINT NOT NULL REFERENCES license (id),
  device_id BIGINT NOT NULL REFERENCES device (id),
  cs_name TEXT NOT NULL,
  player_id TEXT NOT NULL,
  handset_id TEXT NOT NULL,
  created_at BIGINT NOT NULL
);

CREATE INDEX mobile_cs_license ON mobile_cs (license_id, id);
