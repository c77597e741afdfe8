-- A rotated webhook secret stays valid for an overlap period: deliveries carry a signature with
-- the old secret too until then, so receivers can switch without losing events.
ALTER TABLE license ADD COLUMN previous_webhook_secret TEXT;
ALTER TABLE license ADD COLUMN previous_secret_until BIGINT;
