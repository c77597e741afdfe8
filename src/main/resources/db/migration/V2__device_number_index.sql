-- A number is linked to one device at most; creating a device looks it up.
CREATE INDEX device_number ON device (number);
