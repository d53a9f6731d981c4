-- Per-key tokens-per-minute limit; null: the deployment's default (RATE_LIMIT_TPM).
ALTER TABLE api_keys ADD COLUMN rate_limit_tpm integer;

-- Completions usage per project, key, model and minute: each replica sums its requests in memory
-- and adds them here every few seconds (one statement), so there is no write per request. Rows
-- outlive their key: usage of a revoked key stays reportable, as OpenAI's usage API shows it.
CREATE TABLE usage_minutes (
  project_id text NOT NULL,
  api_key_id text NOT NULL,
  model text NOT NULL,
  minute timestamptz NOT NULL,
  requests bigint NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  PRIMARY KEY (project_id, minute, api_key_id, model)
);
