-- A contact's identities (issue 26 item 3). A network may name one person by their phone number, a
-- WAHA/GOWA linked-device id (LID, `<digits>@lid`) or a Meta business-scoped user id (BSUID); a
-- LID or a BSUID means something only to the account that saw it, so the map is per device.
-- `address` is the network id as messages keep it (ContactId.address()); `phone` the E.164 number
-- behind it once known (NULL: a sender heard from by that id alone, so a reply to it is allowed).
CREATE TABLE contact_identity (
  device_id BIGINT NOT NULL REFERENCES device (id),
  address TEXT NOT NULL,
  kind TEXT NOT NULL,
  phone TEXT,
  learned_at BIGINT NOT NULL,
  PRIMARY KEY (device_id, address)
);

CREATE INDEX contact_identity_phone ON contact_identity (device_id, phone);

-- The network's last answer when a number was checked through a device (WAHA's check-exists):
-- cached so that checks themselves do not get the number flagged.
CREATE TABLE number_check (
  device_id BIGINT NOT NULL REFERENCES device (id),
  phone TEXT NOT NULL,
  on_network SMALLINT NOT NULL,
  chat_address TEXT,
  checked_at BIGINT NOT NULL,
  PRIMARY KEY (device_id, phone)
);

-- The network id an incoming message's sender was named by (a LID, a BSUID), when it was; `sender`
-- holds the phone when known, else that id, and is filled in when the phone is learned later.
ALTER TABLE inbound_message ADD COLUMN sender_id TEXT;

-- hasTalkedTo runs before sends (WAHA's number check, the Cloud API's first contact), and a phone
-- learned later rewrites the rows that showed its network id: both look rows up by the contact.
CREATE INDEX message_device_recipient ON message (device_id, recipient);
CREATE INDEX inbound_device_sender ON inbound_message (device_id, sender);
