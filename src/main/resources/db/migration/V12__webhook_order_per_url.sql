-- Webhook events keep their order per device and receiving URL (not per device): one failing
-- receiver does not hold up the device's other webhooks.
CREATE INDEX webhook_delivery_order ON webhook_delivery (device_id, url, state, id);
