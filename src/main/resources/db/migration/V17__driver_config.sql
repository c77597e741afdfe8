-- Driver interface v2 (issue 12): a device's driver configuration, secrets included (never
-- printed back), and each driver's per-device session state.

CREATE TABLE device_config (
  device_id BIGINT NOT NULL REFERENCES device (id),
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (device_id, key)
);

CREATE TABLE driver_state (
  device_id BIGINT NOT NULL REFERENCES device (id),
  driver TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (device_id, driver, key)
);
