-- The usage API over a month read every minute row of it: at 10M rows that took seconds, growing
-- with the rows. Hourly and daily sums are kept beside the minute rows, by triggers on
-- usage_minutes (so every writer, a replica of the previous release during a rolling deploy
-- included, keeps them right), and the report reads whole days and hours from them and only the
-- minutes of the last, partial hour from usage_minutes (usage-report.ts). UTC hours and days, as
-- the report's buckets are. Statement triggers: one grouped upsert per flush, not one per row.
-- Function bodies end their statements with a comment: the migration runner splits at ';' line ends.
CREATE TABLE usage_hours (
  project_id text NOT NULL,
  api_key_id text NOT NULL,
  model text NOT NULL,
  hour timestamptz NOT NULL,
  requests bigint NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  PRIMARY KEY (project_id, hour, api_key_id, model)
);

CREATE TABLE usage_days (
  project_id text NOT NULL,
  api_key_id text NOT NULL,
  model text NOT NULL,
  day timestamptz NOT NULL,
  requests bigint NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  PRIMARY KEY (project_id, day, api_key_id, model)
);

-- Adds what a statement on usage_minutes added (`delta`: its rows, or an upsert's differences) to both roll-ups.
CREATE FUNCTION usage_roll_up_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    WITH delta AS (SELECT * FROM new_rows),
    hours AS (
      INSERT INTO usage_hours AS h (project_id, api_key_id, model, hour, requests, input_tokens, output_tokens)
      SELECT project_id, api_key_id, model, date_bin('1 hour', minute, TIMESTAMPTZ 'epoch'), sum(requests), sum(input_tokens), sum(output_tokens)
        FROM delta GROUP BY 1, 2, 3, 4
      ON CONFLICT (project_id, hour, api_key_id, model) DO UPDATE SET
        requests = h.requests + EXCLUDED.requests, input_tokens = h.input_tokens + EXCLUDED.input_tokens, output_tokens = h.output_tokens + EXCLUDED.output_tokens)
    INSERT INTO usage_days AS d (project_id, api_key_id, model, day, requests, input_tokens, output_tokens)
    SELECT project_id, api_key_id, model, date_bin('1 day', minute, TIMESTAMPTZ 'epoch'), sum(requests), sum(input_tokens), sum(output_tokens)
      FROM delta GROUP BY 1, 2, 3, 4
    ON CONFLICT (project_id, day, api_key_id, model) DO UPDATE SET
      requests = d.requests + EXCLUDED.requests, input_tokens = d.input_tokens + EXCLUDED.input_tokens, output_tokens = d.output_tokens + EXCLUDED.output_tokens; -- new rows
  ELSE
    WITH delta AS (
      SELECT n.project_id, n.api_key_id, n.model, n.minute, n.requests - o.requests AS requests,
             n.input_tokens - o.input_tokens AS input_tokens, n.output_tokens - o.output_tokens AS output_tokens
        FROM new_rows n JOIN old_rows o USING (project_id, minute, api_key_id, model)),
    hours AS (
      INSERT INTO usage_hours AS h (project_id, api_key_id, model, hour, requests, input_tokens, output_tokens)
      SELECT project_id, api_key_id, model, date_bin('1 hour', minute, TIMESTAMPTZ 'epoch'), sum(requests), sum(input_tokens), sum(output_tokens)
        FROM delta GROUP BY 1, 2, 3, 4
      ON CONFLICT (project_id, hour, api_key_id, model) DO UPDATE SET
        requests = h.requests + EXCLUDED.requests, input_tokens = h.input_tokens + EXCLUDED.input_tokens, output_tokens = h.output_tokens + EXCLUDED.output_tokens)
    INSERT INTO usage_days AS d (project_id, api_key_id, model, day, requests, input_tokens, output_tokens)
    SELECT project_id, api_key_id, model, date_bin('1 day', minute, TIMESTAMPTZ 'epoch'), sum(requests), sum(input_tokens), sum(output_tokens)
      FROM delta GROUP BY 1, 2, 3, 4
    ON CONFLICT (project_id, day, api_key_id, model) DO UPDATE SET
      requests = d.requests + EXCLUDED.requests, input_tokens = d.input_tokens + EXCLUDED.input_tokens, output_tokens = d.output_tokens + EXCLUDED.output_tokens; -- an upsert's differences
  END IF; -- either way
  RETURN NULL; -- an AFTER trigger's result is ignored
END
$$;

-- Before the backfill: creating the triggers locks out writers until this migration commits, and
-- the backfill then reads every row committed before it.
CREATE TRIGGER usage_minutes_roll_up_insert AFTER INSERT ON usage_minutes
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION usage_roll_up_add();
CREATE TRIGGER usage_minutes_roll_up_update AFTER UPDATE ON usage_minutes
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION usage_roll_up_add();

INSERT INTO usage_hours (project_id, api_key_id, model, hour, requests, input_tokens, output_tokens)
SELECT project_id, api_key_id, model, date_bin('1 hour', minute, TIMESTAMPTZ 'epoch'), sum(requests), sum(input_tokens), sum(output_tokens)
  FROM usage_minutes GROUP BY 1, 2, 3, 4;
INSERT INTO usage_days (project_id, api_key_id, model, day, requests, input_tokens, output_tokens)
SELECT project_id, api_key_id, model, date_bin('1 day', minute, TIMESTAMPTZ 'epoch'), sum(requests), sum(input_tokens), sum(output_tokens)
  FROM usage_minutes GROUP BY 1, 2, 3, 4;
