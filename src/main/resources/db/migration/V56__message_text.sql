-- PostgreSQL's V56 moves its keyword search's trigram index off the message row into a table of
-- its own (message_text). SQLite has no such index (its search reads the rows): nothing to do here,
-- but the migration versions of both databases stay the same (SchemaParityTest).
SELECT 1;
