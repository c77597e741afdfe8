-- Conversations (issue 29, item 4). The name the network gave with an incoming message (Meta's
-- profile name, a WhatsApp push name): a direct chat is shown by its sender's last one.
ALTER TABLE inbound_message ADD COLUMN sender_name TEXT;

-- How far a device's user has read each chat: the id of the newest incoming message of the chat
-- when it was marked read (ids increase with time, one id space with outgoing messages). A chat's
-- unread messages are its incoming ones above this and above the device's last message to it.
CREATE TABLE chat_read (
  device_id BIGINT NOT NULL REFERENCES device (id),
  chat TEXT NOT NULL,
  read_up_to BIGINT NOT NULL,
  PRIMARY KEY (device_id, chat)
);

-- A group chat's incoming messages are read by their group.
CREATE INDEX inbound_device_group ON inbound_message (device_id, group_id);
