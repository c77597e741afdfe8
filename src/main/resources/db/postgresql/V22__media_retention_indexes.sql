-- The media sweep lets go of the files of messages that ended (and of incoming messages) once they
-- are older than media.keep-for: these partial indexes hold only rows that still keep a file, so
-- the hourly look does not walk every message.
CREATE INDEX message_kept_media ON message (status_at) WHERE media_path IS NOT NULL;
CREATE INDEX inbound_kept_media ON inbound_message (received_at) WHERE media_path IS NOT NULL;
