-- A deleted device (DELETE /admin/devices/{id}, ./kurir admin device delete): its row stays as a
-- tombstone so that its history (messages, incoming messages, schedules, device events) keeps its
-- foreign keys and stays in reports and exports; every lookup of live devices skips it, its
-- credentials are replaced, and its number may be linked again to a new device.
ALTER TABLE device ADD COLUMN deleted_at BIGINT;
