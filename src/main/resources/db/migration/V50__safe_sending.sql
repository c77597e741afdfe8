-- The safe-sending policy of campaigns (issue 30, item 3). planned_at is the moment the policy
-- released the recipient to its device (its slot after the device's random gap), kept beside
-- handed_at (the commit) so that a send's lateness against the policy's schedule can be measured.
-- The index reads a device's campaign sends of the day (its warm-up cap), its last hand-over (its
-- gap) and its last ones sent (the share nobody answered). waiting_reason/waiting_until say why a
-- running campaign sends nothing now and until when: daily_cap (every device of its pool used its
-- day), unanswered (every device holds for the share nobody answered), quiet_hours.
ALTER TABLE campaign_recipient ADD COLUMN planned_at BIGINT;
CREATE INDEX campaign_recipient_device ON campaign_recipient (device_id, handed_at);
ALTER TABLE campaign ADD COLUMN waiting_reason TEXT;
ALTER TABLE campaign ADD COLUMN waiting_until BIGINT;
