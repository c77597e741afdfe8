-- The queue's indexes hold only the rows they serve: pending messages (the send queue) and sending
-- ones (the crash rule). The full indexes that led with or held `state` were rewritten at every
-- state change of every message, receipts included (sent, delivered, read: five changes in a
-- message's life); a partial index is not touched by a change between two states it leaves out.
DROP INDEX message_queue;
DROP INDEX message_pending;
CREATE INDEX message_queue ON message (device_id, sync, id) WHERE state = 'pending';
CREATE INDEX message_sending ON message (device_id, id) WHERE state = 'sending';
