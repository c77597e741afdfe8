-- The contract's skip_link: whether the network may show a preview of a link in the text. Kept
-- with the message so that it reaches the driver whenever the message goes out (after a delay,
-- a retry or a restart). Messages stored before it had no say: previews on, as they were sent.
ALTER TABLE message ADD COLUMN link_preview INTEGER NOT NULL DEFAULT 1;
