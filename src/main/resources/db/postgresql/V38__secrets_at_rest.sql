-- Secrets at rest (issue 25 item 12). A copy of the database hands over no usable credential:
-- partner.basic_secret, license.code, license.push_key, device.eco_key, device.device_key and
-- device.crm_device_id hold `sha256:<hex>` of the credential and are looked up by it;
-- license.webhook_secret, license.previous_webhook_secret, device_config.value and WAHA's signing
-- key in driver_state hold `enc:<key id>:<AES-256-GCM>` under a key kept outside the database.
-- The Eco key is also kept encrypted here, because the Partner API's get_key hands it back.
-- Rows written by older versions are hashed and encrypted in Java at start-up (StoredSecrets):
-- SQL cannot, the key is not in the database.
ALTER TABLE device ADD COLUMN eco_key_sealed TEXT;

-- The id (not the key) of the key this database's secrets are encrypted with, once one was chosen:
-- a node started without it, or with another one (several nodes each making their own at once),
-- is refused before it writes anything with it.
CREATE TABLE secrets_key (
  id SMALLINT PRIMARY KEY,
  key_id TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
