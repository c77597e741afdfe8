-- A license's API keys for Kurir's own API (/v1): each with a name and its scopes (send, read,
-- webhooks, contacts, campaigns, comma-separated). The key is shown once on creation and stored
-- as its hash only (sha256:...), looked up by it. A revoked key keeps its row (revoked_at set) so
-- that what it did stays attributable; it authenticates no more.
CREATE TABLE api_key (
  id BIGINT NOT NULL PRIMARY KEY,
  license_id BIGINT NOT NULL REFERENCES license (id),
  name TEXT NOT NULL,
  key_hash TEXT NOT NULL,
  scopes TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  revoked_at BIGINT
);

CREATE UNIQUE INDEX api_key_hash ON api_key (key_hash);
CREATE INDEX api_key_license ON api_key (license_id);
