-- A device whose network refused the account, its token or its number id (Meta's 10, 190, 200,
-- 131031, 133010, ...): it shows `failed` with the reason and its queue is held, messages staying
-- queued, until the device's configuration changes or an operator retries it
-- (POST /admin/devices/{id}/retry). One row per held device; the row is removed on resume.
CREATE TABLE device_hold (
  device_id BIGINT NOT NULL PRIMARY KEY,
  reason TEXT NOT NULL,
  held_at BIGINT NOT NULL
);
