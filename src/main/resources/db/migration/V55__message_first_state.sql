-- A message's first history line (the state it was accepted in, at its created_at, no reason) is
-- told from its own row instead of stored in message_event (issue 31): one row and one index entry
-- fewer per accepted message. Rows stored before this keep that line in message_event and have no
-- first_state, so nothing is told twice.
ALTER TABLE message ADD COLUMN first_state TEXT;
