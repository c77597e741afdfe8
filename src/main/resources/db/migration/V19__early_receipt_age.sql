-- Receipts no message took are dropped after a day; found by age without reading the table whole.
CREATE INDEX early_receipt_received ON early_receipt (received_at);
