-- Every kind of message the Cloud API's message object has (issue 29). An outgoing message of
-- Kurir's own API keeps its content: the message object (type, the kind's object, context,
-- mentions) as JSON; its kind column holds the kind's name. The seed families' text, image and
-- file messages keep NULL here and read as text, image and document.
ALTER TABLE message ADD COLUMN content TEXT;

-- An incoming message keeps its kind and content too (a location, a contact card, a reaction...);
-- NULL for rows stored before, which read as text, or as the image or document they kept.
ALTER TABLE inbound_message ADD COLUMN kind TEXT;
ALTER TABLE inbound_message ADD COLUMN content TEXT;
