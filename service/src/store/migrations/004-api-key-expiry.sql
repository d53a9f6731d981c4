-- An optional expiry per key: past it the key is refused like a revoked one.
ALTER TABLE api_keys ADD COLUMN expires_at timestamptz;
