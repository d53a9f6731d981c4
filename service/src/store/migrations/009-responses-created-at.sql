-- Stored responses expire (RESPONSES_RETENTION_DAYS): the periodic sweep finds the oldest ones
-- by creation time in small batches, which without this index reads the whole table each time.
CREATE INDEX responses_created_at ON responses (created_at);
