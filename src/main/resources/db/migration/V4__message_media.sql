-- An image or file sent with a message: its safe name, its sniffed type, and where the gateway
-- keeps the copy it fetched (under data.dir/media), so that a retry or a restart sends it again
-- without fetching it again.
ALTER TABLE message ADD COLUMN media_name TEXT;
ALTER TABLE message ADD COLUMN media_type TEXT;
ALTER TABLE message ADD COLUMN media_path TEXT;
