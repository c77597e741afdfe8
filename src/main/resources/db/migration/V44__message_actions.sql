-- What was done to a sent message after it went out (issue 29, Kurir's own API): deleted for
-- everyone ("revoked") or edited (with the new text), each when the network confirmed it.
-- GET /v1/messages/{id} shows them beside the message's states; the event log reports them as
-- message.revoked and message.edited.
CREATE TABLE message_action (
  id BIGINT NOT NULL PRIMARY KEY,
  message_id BIGINT NOT NULL,
  action TEXT NOT NULL,
  body TEXT,
  at BIGINT NOT NULL
);

CREATE INDEX message_action_message ON message_action (message_id, id);
