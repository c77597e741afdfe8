-- Files uploaded for send_image, per device and name: uploading the same name again replaces it.
CREATE TABLE upload (
  id ${id_pk},
  device_id BIGINT NOT NULL REFERENCES device (id),
  name TEXT NOT NULL,
  mime_type TEXT NOT NULL,
  path TEXT NOT NULL,
  size BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  UNIQUE (device_id, name)
);
