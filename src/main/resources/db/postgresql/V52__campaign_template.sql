-- Campaigns on Cloud API devices (issue 30): Meta delivers a free-form message only to someone who
-- wrote to the number in the last 24 hours, so a campaign whose pool has a Cloud API device names
-- an approved template. template is the native message object of type template (with {name} and
-- {attribute} variables in its text parameters), sent by the pool's Cloud API devices while the
-- campaign's message and variants go to its other devices; NULL: none.
ALTER TABLE campaign ADD COLUMN template TEXT;
