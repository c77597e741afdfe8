-- Accepting a message writes one index entry fewer (issue 31): a message has no network id until
-- it is sent, and every look-up by network id names one (network_id = ?), so the index keeps only
-- the messages that have it. A sent message's id is added to it then, as it was before (where the
-- entry's NULL was replaced).
DROP INDEX message_network;
CREATE INDEX message_network ON message (device_id, network_id) WHERE network_id IS NOT NULL;
