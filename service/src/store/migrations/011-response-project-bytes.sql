-- Bytes of stored responses per project, so the per-project cap (RESPONSES_PROJECT_MAX_BYTES) and
-- the metric read one row instead of summing a project's responses. Kept in step with `responses`
-- in the same transaction by every insert and delete (domain/responses/response-store.ts).
CREATE TABLE response_project_bytes (
  project_id text PRIMARY KEY,
  bytes      bigint NOT NULL
);
INSERT INTO response_project_bytes (project_id, bytes)
  SELECT project_id, sum(bytes) FROM responses GROUP BY project_id;
