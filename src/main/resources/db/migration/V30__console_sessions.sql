-- Web console sign-ins (issue 17): one row per signed-in browser, in the database so that every
-- node sharing it knows the session, and signing out or expiry ends it everywhere at once.
-- token_hash: SHA-256 (hex) of the cookie's value; the cookie alone signs in, a copy of this table
--   does not.
-- license_id: set for a customer's sign-in (they see that license only), null for an operator.
-- csrf: the token every form of the session carries and every POST must send back.
CREATE TABLE console_session (
  token_hash TEXT PRIMARY KEY,
  license_id BIGINT REFERENCES license (id),
  csrf TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);

CREATE INDEX console_session_expires ON console_session (expires_at);
