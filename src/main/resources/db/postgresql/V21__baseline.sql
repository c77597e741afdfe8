-- PostgreSQL's schema, equal to SQLite's after its V21 (db/migration). SQLite's migrations stay as
-- they are (installed databases hold their checksums); this baseline is written for PostgreSQL
-- and numbered 21 so that a later migration has the same number in both folders.
-- SchemaParityTest compares the two schemas' tables and columns.
--
-- Times are UTC epoch milliseconds (BIGINT); dates are ISO text (YYYY-MM-DD); flags are 0/1
-- (SMALLINT or INTEGER, as on SQLite, since the code binds and reads numbers). Ids come from
-- IdGenerator, except in the two event tables, whose identity column stands for SQLite's rowid:
-- it orders events of the same millisecond.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE partner (
  id BIGINT PRIMARY KEY,
  name TEXT NOT NULL,
  email TEXT NOT NULL DEFAULT '',
  basic_user TEXT NOT NULL UNIQUE,
  basic_secret TEXT NOT NULL,
  disabled SMALLINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL
);

CREATE TABLE license (
  id BIGINT PRIMARY KEY,
  partner_id BIGINT NOT NULL REFERENCES partner (id),
  code TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  email TEXT NOT NULL DEFAULT '',
  expires_on TEXT,
  allowed_addresses TEXT NOT NULL DEFAULT '',
  disabled SMALLINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  webhook_secret TEXT,
  previous_webhook_secret TEXT,
  previous_secret_until BIGINT,
  push_key TEXT
);

CREATE UNIQUE INDEX license_push_key ON license (push_key);

CREATE TABLE device (
  id BIGINT PRIMARY KEY,
  license_id BIGINT NOT NULL REFERENCES license (id),
  number TEXT NOT NULL,
  eco_key TEXT NOT NULL UNIQUE,
  device_key TEXT NOT NULL UNIQUE,
  crm_device_id TEXT NOT NULL UNIQUE,
  driver TEXT NOT NULL,
  disabled SMALLINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  state TEXT NOT NULL DEFAULT 'none',
  status_webhook_url TEXT,
  incoming_webhook_url TEXT,
  outgoing_webhook_url TEXT
);

CREATE INDEX device_license ON device (license_id);
CREATE INDEX device_number ON device (number);

CREATE TABLE message (
  id BIGINT PRIMARY KEY,
  device_id BIGINT NOT NULL REFERENCES device (id),
  recipient TEXT NOT NULL,
  recipient_type TEXT NOT NULL,
  kind TEXT NOT NULL,
  body TEXT NOT NULL,
  api TEXT NOT NULL,
  sync SMALLINT NOT NULL,
  retry SMALLINT NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0,
  state TEXT NOT NULL,
  reason TEXT,
  not_before BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  sent_at BIGINT,
  status_at BIGINT NOT NULL,
  media_name TEXT,
  media_type TEXT,
  media_path TEXT,
  network_id TEXT,
  media_url TEXT,
  link_preview INTEGER NOT NULL DEFAULT 1
);

CREATE INDEX message_device_created ON message (device_id, created_at);
CREATE INDEX message_network ON message (device_id, network_id);
-- As on SQLite (V20): the queue's indexes hold only the rows they serve.
CREATE INDEX message_queue ON message (device_id, sync, id) WHERE state = 'pending';
CREATE INDEX message_sending ON message (device_id, id) WHERE state = 'sending';
-- report_json's keyword search: lower(body) LIKE '%…%' (Dialect.lowerLike).
CREATE INDEX message_body_trgm ON message USING gin (lower(body) gin_trgm_ops);

CREATE TABLE message_event (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  message_id BIGINT NOT NULL,
  state TEXT NOT NULL,
  reason TEXT,
  at BIGINT NOT NULL
);

CREATE INDEX message_event_message ON message_event (message_id, at);

CREATE TABLE inbound_message (
  id BIGINT PRIMARY KEY,
  device_id BIGINT NOT NULL REFERENCES device (id),
  sender TEXT NOT NULL,
  body TEXT NOT NULL,
  received_at BIGINT NOT NULL,
  keyword TEXT,
  reply_message_id BIGINT,
  network_id TEXT,
  group_id TEXT,
  media_type TEXT,
  media_path TEXT
);

CREATE INDEX inbound_device ON inbound_message (device_id, received_at);
CREATE UNIQUE INDEX inbound_network ON inbound_message (device_id, network_id);

CREATE TABLE upload (
  id BIGINT PRIMARY KEY,
  device_id BIGINT NOT NULL REFERENCES device (id),
  name TEXT NOT NULL,
  mime_type TEXT NOT NULL,
  path TEXT NOT NULL,
  size BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  UNIQUE (device_id, name)
);

CREATE TABLE device_event (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  device_id BIGINT NOT NULL REFERENCES device (id),
  old_state TEXT NOT NULL,
  new_state TEXT NOT NULL,
  reason TEXT,
  at BIGINT NOT NULL
);

CREATE INDEX device_event_device ON device_event (device_id, at);

CREATE TABLE webhook_delivery (
  id BIGINT PRIMARY KEY,
  device_id BIGINT NOT NULL REFERENCES device (id),
  url TEXT NOT NULL,
  event TEXT NOT NULL,
  payload TEXT NOT NULL,
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at BIGINT NOT NULL,
  last_error TEXT,
  created_at BIGINT NOT NULL,
  finished_at BIGINT,
  claim_token BIGINT,
  claimed_by INTEGER,
  claim_until BIGINT,
  held_until BIGINT,
  message_id BIGINT,
  seq BIGINT,
  event_at BIGINT
);

CREATE INDEX webhook_delivery_line ON webhook_delivery (state, device_id, url, id);
CREATE INDEX webhook_delivery_state ON webhook_delivery (state, id);
CREATE INDEX webhook_delivery_claimed ON webhook_delivery (device_id, url, claim_until)
  WHERE claim_until IS NOT NULL;
CREATE INDEX webhook_delivery_held ON webhook_delivery (held_until)
  WHERE held_until IS NOT NULL;
CREATE INDEX webhook_delivery_message ON webhook_delivery (message_id, state, id)
  WHERE message_id IS NOT NULL;

CREATE TABLE webhook_sequence (
  device_id BIGINT NOT NULL REFERENCES device (id),
  event TEXT NOT NULL,
  last_seq BIGINT NOT NULL,
  PRIMARY KEY (device_id, event)
);

CREATE TABLE schedule (
  id BIGINT PRIMARY KEY,
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

CREATE INDEX schedule_due ON schedule (state, due_at);
CREATE INDEX schedule_device_due ON schedule (device_id, due_at);

CREATE TABLE bot_rule (
  id BIGINT PRIMARY KEY,
  license_id BIGINT NOT NULL REFERENCES license (id),
  keyword TEXT NOT NULL,
  match_key TEXT NOT NULL,
  match_type TEXT NOT NULL,
  response TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL DEFAULT 0
);

CREATE INDEX bot_rule_license ON bot_rule (license_id, id);

CREATE TABLE mobile_cs (
  id BIGINT PRIMARY KEY,
  license_id BIGINT NOT NULL REFERENCES license (id),
  device_id BIGINT NOT NULL REFERENCES device (id),
  cs_name TEXT NOT NULL,
  player_id TEXT NOT NULL,
  handset_id TEXT NOT NULL,
  created_at BIGINT NOT NULL
);

CREATE INDEX mobile_cs_license ON mobile_cs (license_id, id);

CREATE TABLE device_lease (
  device_id BIGINT PRIMARY KEY,
  owner TEXT NOT NULL,
  expires_at BIGINT NOT NULL
);

CREATE TABLE early_receipt (
  device_id BIGINT NOT NULL,
  network_id TEXT NOT NULL,
  status TEXT NOT NULL,
  reason TEXT,
  at BIGINT NOT NULL,
  received_at BIGINT NOT NULL
);

CREATE INDEX early_receipt_network ON early_receipt (device_id, network_id);
CREATE INDEX early_receipt_received ON early_receipt (received_at);

CREATE TABLE idempotency_key (
  device_id BIGINT NOT NULL REFERENCES device (id),
  idem_key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  ids TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (device_id, idem_key)
);

CREATE INDEX idempotency_key_created ON idempotency_key (created_at);

CREATE TABLE device_config (
  device_id BIGINT NOT NULL REFERENCES device (id),
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (device_id, key)
);

CREATE TABLE driver_state (
  device_id BIGINT NOT NULL REFERENCES device (id),
  driver TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (device_id, driver, key)
);
