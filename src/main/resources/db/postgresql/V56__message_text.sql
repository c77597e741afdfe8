-- The keyword search's index moves off the message row (issue 31, seventh pass). Every change of a
-- message's state is an update that is not heap-only (its state is in partial indexes' predicates),
-- so each one wrote a new entry in every index of the row, the body's trigram index too: for a
-- body of a hundred characters, most of the update's cost. A message's text never changes after it
-- is accepted: it is kept once in message_text, with the trigram index, and the message row's
-- updates no longer touch it. The rows are written by the database with every insert of messages
-- (one statement per insert statement, in its transaction), whichever code inserts.
-- No message is inserted meanwhile, by a node of the version before this one still running: its
-- text would be neither copied nor, the trigger not committed yet, written (reads go on).
LOCK TABLE message IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE message_text (
  id BIGINT PRIMARY KEY,
  body TEXT NOT NULL
);

INSERT INTO message_text (id, body) SELECT id, body FROM message;

CREATE INDEX message_text_trgm ON message_text USING gin (lower(body) gin_trgm_ops);

DROP INDEX message_body_trgm;

CREATE FUNCTION message_text_of_new_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO message_text (id, body) SELECT id, body FROM new_messages;
  RETURN NULL;
END
$$;

CREATE TRIGGER message_text_of_new_messages AFTER INSERT ON message
  REFERENCING NEW TABLE AS new_messages
  FOR EACH STATEMENT EXECUTE FUNCTION message_text_of_new_messages();
