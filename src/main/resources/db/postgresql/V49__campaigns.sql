-- Campaigns (issue 30): a message sent to the contacts of a license's contact book that have any
-- of the audience's tags. status: draft, scheduled, running, paused, done, cancelled.
-- tags, message, variants and devices are JSON: the audience's tags; the native message object
-- (with {name}, {phone} and {attribute} variables in its text and captions); the other message
-- objects one of which is picked per recipient (NULL: none); the device pool's ids (NULL: every
-- enabled device of the license). quiet_from/quiet_to (HH:MM, in the operator's time zone) are
-- the hours nothing is sent; NULL: none. expanded says the audience is all in campaign_recipient;
-- cursor_phone is the last contact taken, advanced in the commit that inserts its batch, so that
-- an expansion cut short resumes after it. stop_reason says why a campaign paused by itself.
CREATE TABLE campaign (
  id BIGINT NOT NULL PRIMARY KEY,
  license_id BIGINT NOT NULL REFERENCES license (id),
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  tags TEXT NOT NULL,
  message TEXT NOT NULL,
  variants TEXT,
  devices TEXT,
  start_at BIGINT,
  quiet_from TEXT,
  quiet_to TEXT,
  expanded SMALLINT NOT NULL,
  cursor_phone TEXT NOT NULL,
  stop_reason TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  started_at BIGINT,
  finished_at BIGINT
);

CREATE INDEX campaign_license ON campaign (license_id, id);
CREATE INDEX campaign_status ON campaign (status);

-- One row per recipient. state: waiting (not handed to the queue yet), handed (message_id is its
-- message, stored in the same commit), opted_out (the contact unsubscribed before its turn),
-- cancelled, failed (its message could not be made: reason). variant is the message picked (0: the
-- campaign's message, n: its n-th variant); variables are the contact's values at expansion.
CREATE TABLE campaign_recipient (
  campaign_id BIGINT NOT NULL REFERENCES campaign (id),
  phone TEXT NOT NULL,
  name TEXT,
  variables TEXT NOT NULL,
  variant INTEGER NOT NULL,
  state TEXT NOT NULL,
  device_id BIGINT,
  message_id BIGINT,
  reason TEXT,
  handed_at BIGINT,
  settled_at BIGINT,
  PRIMARY KEY (campaign_id, phone)
);

CREATE INDEX campaign_recipient_state ON campaign_recipient (campaign_id, state, phone);
CREATE INDEX campaign_recipient_message ON campaign_recipient (message_id);
