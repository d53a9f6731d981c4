-- Per-key requests-per-minute limit; null: the deployment's default (RATE_LIMIT_RPM).
ALTER TABLE api_keys ADD COLUMN rate_limit_rpm integer;
