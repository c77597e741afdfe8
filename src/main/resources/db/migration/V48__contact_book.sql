-- A license's contact book (issue 30): the people its campaigns write to. A contact's phone (E.164
-- digits, read as the Eco API reads numbers) is its key within the license: importing the same
-- phone again updates it. attributes is a JSON object of the other columns a CSV import gave
-- (names lower case, spaces as _), read by a campaign's {attribute} variables.
-- unsubscribed_at is set when the contact opted out (a reply of STOP or another opt-out word, or
-- an operator or integrator said so) and unsubscribed_by says how; campaigns skip such a contact,
-- and an import never subscribes it again.
CREATE TABLE book_contact (
  id BIGINT NOT NULL PRIMARY KEY,
  license_id BIGINT NOT NULL REFERENCES license (id),
  phone TEXT NOT NULL,
  name TEXT,
  attributes TEXT NOT NULL,
  unsubscribed_at BIGINT,
  unsubscribed_by TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE UNIQUE INDEX book_contact_phone ON book_contact (license_id, phone);

-- A contact's tags (a campaign's audience is the contacts with any of its tags), kept lower case.
CREATE TABLE book_contact_tag (
  contact_id BIGINT NOT NULL REFERENCES book_contact (id),
  license_id BIGINT NOT NULL,
  tag TEXT NOT NULL,
  PRIMARY KEY (contact_id, tag)
);

CREATE INDEX book_contact_tag_license ON book_contact_tag (license_id, tag, contact_id);
