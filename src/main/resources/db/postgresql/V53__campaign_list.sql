-- A campaign's audience as an uploaded list (issue 30, item 2): a school sends this term's parents
-- list for one campaign without putting it into the contact book. audience_list = 1: the audience
-- is the list, not the book's tags. Each upload writes its rows under its own id (upload), 500 a
-- commit; only its final commit names it the campaign's list (list_upload) with its row count
-- (list_rows), so a list whose upload was cut off part-way never becomes the audience, and the
-- list uploaded before it stays until a new one is complete. list_rows NULL: no list yet.
ALTER TABLE campaign ADD COLUMN audience_list SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE campaign ADD COLUMN list_upload BIGINT;
ALTER TABLE campaign ADD COLUMN list_rows INTEGER;

-- The listed recipients: phone in E.164, name, and the list's other columns as the {variable}s of
-- the message (JSON object). Read by (campaign_id, upload, phone) after the expansion's cursor.
CREATE TABLE campaign_list (
  campaign_id BIGINT NOT NULL REFERENCES campaign (id),
  upload BIGINT NOT NULL,
  phone TEXT NOT NULL,
  name TEXT,
  variables TEXT NOT NULL,
  PRIMARY KEY (campaign_id, upload, phone)
);
