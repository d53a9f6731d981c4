-- API keys belong to a project. Only the SHA-256 of the secret is stored.
CREATE TABLE api_keys (
  id            text PRIMARY KEY,
  project_id    text NOT NULL,
  name          text NOT NULL,
  secret_hash   bytea NOT NULL UNIQUE,
  redacted      text NOT NULL,
  created_by    text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz
);
CREATE INDEX api_keys_project ON api_keys (project_id, created_at, id);
