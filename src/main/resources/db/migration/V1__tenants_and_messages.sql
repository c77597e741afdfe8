-- Portable SQL (SQLite and PostgreSQL). ${id_pk} comes from the Dialect.
-- Times are UTC epoch milliseconds; dates are ISO text (YYYY-MM-DD); flags are 0/1.

CREATE TABLE partner (
  id ${id_pk},
  name TEXT NOT NULL,
  email TEXT NOT NULL DEFAULT '',
  basic_user TEXT NOT NULL UNIQUE,
  basic_secret TEXT NOT NULL,
  disabled SMALLINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL
);

CREATE TABLE license (
  id ${id_pk},
  partner_id BIGINT NOT NULL REFERENCES partner (id),
  code TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  email TEXT NOT NULL DEFAULT '',
  expires_on TEXT,
  allowed_addresses TEXT NOT NULL DEFAULT '',
  disabled SMALLINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL
);

CREATE TABLE device (
  id ${id_pk},
  license_id BIGINT NOT NULL REFERENCES license (id),
  number TEXT NOT NULL,
  eco_key TEXT NOT NULL UNIQUE,
  device_key TEXT NOT NULL UNIQUE,
  crm_device_id TEXT NOT NULL UNIQUE,
  driver TEXT NOT NULL,
  disabled SMALLINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL
);

CREATE INDEX device_license ON device (license_id);

CREATE TABLE message (
  id ${id_pk},
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
  status_at BIGINT NOT NULL
);

-- The sender loops load what is still to be sent; reports read by device and time.
CREATE INDEX message_pending ON message (state, device_id, id);
CREATE INDEX message_device_created ON message (device_id, created_at);

CREATE TABLE inbound_message (
  id ${id_pk},
  device_id BIGINT NOT NULL REFERENCES device (id),
  sender TEXT NOT NULL,
  body TEXT NOT NULL,
  received_at BIGINT NOT NULL
);

CREATE INDEX inbound_device ON inbound_message (device_id, received_at);
