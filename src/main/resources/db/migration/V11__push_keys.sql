-- The push families' credential: every license has a push key. Push v1 callers send it as Basic
-- credentials (license code : push key), push v2 callers as a Bearer token.
ALTER TABLE license ADD COLUMN push_key TEXT;
UPDATE license SET push_key = ${random_secret} WHERE push_key IS NULL;
CREATE UNIQUE INDEX license_push_key ON license (push_key);
