-- Async media sends answer before the file is fetched (issue 12): the URL waits with the message,
-- and the device's sender fetches it when the message's turn comes, also after a restart.
ALTER TABLE message ADD COLUMN media_url TEXT;
