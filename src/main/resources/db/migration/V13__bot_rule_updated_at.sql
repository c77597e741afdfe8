-- When a rule last changed, so that a node can tell cheaply whether its matcher is stale.
ALTER TABLE bot_rule ADD COLUMN updated_at BIGINT NOT NULL DEFAULT 0;
UPDATE bot_rule SET updated_at = created_at;
