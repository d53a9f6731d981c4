-- The usage and costs APIs over a month read one roll-up row per key, model and day (and hour, and
-- minute of the last hour): with keys growing with the usage, so did the rows every report read,
-- though a dashboard's report (ungrouped, by model, by line item) never names a key. These tables
-- keep the same sums per project and model, kept by the same statement triggers (replacing
-- migration 013's function by name, so a replica of the previous release writing usage_minutes
-- keeps them right too), and a report neither grouped nor filtered by key reads them instead
-- (usage-report.ts): rows per project, model and time, however many keys there are.
-- First, writers wait: this lock conflicts with every insert and update of usage_minutes, so a
-- flush in flight commits before it (its sums already in the rows the backfill reads) and the next
-- one runs after this migration commits, with the new trigger function.
LOCK TABLE usage_minutes IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE usage_model_minutes (
  project_id text NOT NULL,
  model text NOT NULL,
  minute timestamptz NOT NULL,
  requests bigint NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  input_cost_micro_usd bigint NOT NULL,
  output_cost_micro_usd bigint NOT NULL,
  PRIMARY KEY (project_id, minute, model)
);

CREATE TABLE usage_model_hours (
  project_id text NOT NULL,
  model text NOT NULL,
  hour timestamptz NOT NULL,
  requests bigint NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  input_cost_micro_usd bigint NOT NULL,
  output_cost_micro_usd bigint NOT NULL,
  PRIMARY KEY (project_id, hour, model)
);

CREATE TABLE usage_model_days (
  project_id text NOT NULL,
  model text NOT NULL,
  day timestamptz NOT NULL,
  requests bigint NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  input_cost_micro_usd bigint NOT NULL,
  output_cost_micro_usd bigint NOT NULL,
  PRIMARY KEY (project_id, day, model)
);

-- Migration 013's function with the three per-model tiers added: the same delta, summed without the key.
CREATE OR REPLACE FUNCTION usage_roll_up_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    WITH delta AS (SELECT * FROM new_rows),
    hours AS (
      INSERT INTO usage_hours AS h (project_id, api_key_id, model, hour, requests, input_tokens, output_tokens, input_cost_micro_usd, output_cost_micro_usd)
      SELECT project_id, api_key_id, model, date_bin('1 hour', minute, TIMESTAMPTZ 'epoch'), sum(requests), sum(input_tokens), sum(output_tokens), sum(input_cost_micro_usd), sum(output_cost_micro_usd)
        FROM delta GROUP BY 1, 2, 3, 4
      ON CONFLICT (project_id, hour, api_key_id, model) DO UPDATE SET
        requests = h.requests + EXCLUDED.requests, input_tokens = h.input_tokens + EXCLUDED.input_tokens, output_tokens = h.output_tokens + EXCLUDED.output_tokens,
        input_cost_micro_usd = h.input_cost_micro_usd + EXCLUDED.input_cost_micro_usd, output_cost_micro_usd = h.output_cost_micro_usd + EXCLUDED.output_cost_micro_usd),
    days AS (
      INSERT INTO usage_days AS d (project_id, api_key_id, model, day, requests, input_tokens, output_tokens, input_cost_micro_usd, output_cost_micro_usd)
      SELECT project_id, api_key_id, model, date_bin('1 day', minute, TIMESTAMPTZ 'epoch'), sum(requests), sum(input_tokens), sum(output_tokens), sum(input_cost_micro_usd), sum(output_cost_micro_usd)
        FROM delta GROUP BY 1, 2, 3, 4
      ON CONFLICT (project_id, day, api_key_id, model) DO UPDATE SET
        requests = d.requests + EXCLUDED.requests, input_tokens = d.input_tokens + EXCLUDED.input_tokens, output_tokens = d.output_tokens + EXCLUDED.output_tokens,
        input_cost_micro_usd = d.input_cost_micro_usd + EXCLUDED.input_cost_micro_usd, output_cost_micro_usd = d.output_cost_micro_usd + EXCLUDED.output_cost_micro_usd),
    model_minutes AS (
      INSERT INTO usage_model_minutes AS m (project_id, model, minute, requests, input_tokens, output_tokens, input_cost_micro_usd, output_cost_micro_usd)
      SELECT project_id, model, minute, sum(requests), sum(input_tokens), sum(output_tokens), sum(input_cost_micro_usd), sum(output_cost_micro_usd)
        FROM delta GROUP BY 1, 2, 3
      ON CONFLICT (project_id, minute, model) DO UPDATE SET
        requests = m.requests + EXCLUDED.requests, input_tokens = m.input_tokens + EXCLUDED.input_tokens, output_tokens = m.output_tokens + EXCLUDED.output_tokens,
        input_cost_micro_usd = m.input_cost_micro_usd + EXCLUDED.input_cost_micro_usd, output_cost_micro_usd = m.output_cost_micro_usd + EXCLUDED.output_cost_micro_usd),
    model_hours AS (
      INSERT INTO usage_model_hours AS mh (project_id, model, hour, requests, input_tokens, output_tokens, input_cost_micro_usd, output_cost_micro_usd)
      SELECT project_id, model, date_bin('1 hour', minute, TIMESTAMPTZ 'epoch'), sum(requests), sum(input_tokens), sum(output_tokens), sum(input_cost_micro_usd), sum(output_cost_micro_usd)
        FROM delta GROUP BY 1, 2, 3
      ON CONFLICT (project_id, hour, model) DO UPDATE SET
        requests = mh.requests + EXCLUDED.requests, input_tokens = mh.input_tokens + EXCLUDED.input_tokens, output_tokens = mh.output_tokens + EXCLUDED.output_tokens,
        input_cost_micro_usd = mh.input_cost_micro_usd + EXCLUDED.input_cost_micro_usd, output_cost_micro_usd = mh.output_cost_micro_usd + EXCLUDED.output_cost_micro_usd)
    INSERT INTO usage_model_days AS md (project_id, model, day, requests, input_tokens, output_tokens, input_cost_micro_usd, output_cost_micro_usd)
    SELECT project_id, model, date_bin('1 day', minute, TIMESTAMPTZ 'epoch'), sum(requests), sum(input_tokens), sum(output_tokens), sum(input_cost_micro_usd), sum(output_cost_micro_usd)
      FROM delta GROUP BY 1, 2, 3
    ON CONFLICT (project_id, day, model) DO UPDATE SET
      requests = md.requests + EXCLUDED.requests, input_tokens = md.input_tokens + EXCLUDED.input_tokens, output_tokens = md.output_tokens + EXCLUDED.output_tokens,
      input_cost_micro_usd = md.input_cost_micro_usd + EXCLUDED.input_cost_micro_usd, output_cost_micro_usd = md.output_cost_micro_usd + EXCLUDED.output_cost_micro_usd; -- new rows
  ELSE
    WITH delta AS (
      SELECT n.project_id, n.api_key_id, n.model, n.minute, n.requests - o.requests AS requests,
             n.input_tokens - o.input_tokens AS input_tokens, n.output_tokens - o.output_tokens AS output_tokens,
             n.input_cost_micro_usd - o.input_cost_micro_usd AS input_cost_micro_usd,
             n.output_cost_micro_usd - o.output_cost_micro_usd AS output_cost_micro_usd
        FROM new_rows n JOIN old_rows o USING (project_id, minute, api_key_id, model)),
    hours AS (
      INSERT INTO usage_hours AS h (project_id, api_key_id, model, hour, requests, input_tokens, output_tokens, input_cost_micro_usd, output_cost_micro_usd)
      SELECT project_id, api_key_id, model, date_bin('1 hour', minute, TIMESTAMPTZ 'epoch'), sum(requests), sum(input_tokens), sum(output_tokens), sum(input_cost_micro_usd), sum(output_cost_micro_usd)
        FROM delta GROUP BY 1, 2, 3, 4
      ON CONFLICT (project_id, hour, api_key_id, model) DO UPDATE SET
        requests = h.requests + EXCLUDED.requests, input_tokens = h.input_tokens + EXCLUDED.input_tokens, output_tokens = h.output_tokens + EXCLUDED.output_tokens,
        input_cost_micro_usd = h.input_cost_micro_usd + EXCLUDED.input_cost_micro_usd, output_cost_micro_usd = h.output_cost_micro_usd + EXCLUDED.output_cost_micro_usd),
    days AS (
      INSERT INTO usage_days AS d (project_id, api_key_id, model, day, requests, input_tokens, output_tokens, input_cost_micro_usd, output_cost_micro_usd)
      SELECT project_id, api_key_id, model, date_bin('1 day', minute, TIMESTAMPTZ 'epoch'), sum(requests), sum(input_tokens), sum(output_tokens), sum(input_cost_micro_usd), sum(output_cost_micro_usd)
        FROM delta GROUP BY 1, 2, 3, 4
      ON CONFLICT (project_id, day, api_key_id, model) DO UPDATE SET
        requests = d.requests + EXCLUDED.requests, input_tokens = d.input_tokens + EXCLUDED.input_tokens, output_tokens = d.output_tokens + EXCLUDED.output_tokens,
        input_cost_micro_usd = d.input_cost_micro_usd + EXCLUDED.input_cost_micro_usd, output_cost_micro_usd = d.output_cost_micro_usd + EXCLUDED.output_cost_micro_usd),
    model_minutes AS (
      INSERT INTO usage_model_minutes AS m (project_id, model, minute, requests, input_tokens, output_tokens, input_cost_micro_usd, output_cost_micro_usd)
      SELECT project_id, model, minute, sum(requests), sum(input_tokens), sum(output_tokens), sum(input_cost_micro_usd), sum(output_cost_micro_usd)
        FROM delta GROUP BY 1, 2, 3
      ON CONFLICT (project_id, minute, model) DO UPDATE SET
        requests = m.requests + EXCLUDED.requests, input_tokens = m.input_tokens + EXCLUDED.input_tokens, output_tokens = m.output_tokens + EXCLUDED.output_tokens,
        input_cost_micro_usd = m.input_cost_micro_usd + EXCLUDED.input_cost_micro_usd, output_cost_micro_usd = m.output_cost_micro_usd + EXCLUDED.output_cost_micro_usd),
    model_hours AS (
      INSERT INTO usage_model_hours AS mh (project_id, model, hour, requests, input_tokens, output_tokens, input_cost_micro_usd, output_cost_micro_usd)
      SELECT project_id, model, date_bin('1 hour', minute, TIMESTAMPTZ 'epoch'), sum(requests), sum(input_tokens), sum(output_tokens), sum(input_cost_micro_usd), sum(output_cost_micro_usd)
        FROM delta GROUP BY 1, 2, 3
      ON CONFLICT (project_id, hour, model) DO UPDATE SET
        requests = mh.requests + EXCLUDED.requests, input_tokens = mh.input_tokens + EXCLUDED.input_tokens, output_tokens = mh.output_tokens + EXCLUDED.output_tokens,
        input_cost_micro_usd = mh.input_cost_micro_usd + EXCLUDED.input_cost_micro_usd, output_cost_micro_usd = mh.output_cost_micro_usd + EXCLUDED.output_cost_micro_usd)
    INSERT INTO usage_model_days AS md (project_id, model, day, requests, input_tokens, output_tokens, input_cost_micro_usd, output_cost_micro_usd)
    SELECT project_id, model, date_bin('1 day', minute, TIMESTAMPTZ 'epoch'), sum(requests), sum(input_tokens), sum(output_tokens), sum(input_cost_micro_usd), sum(output_cost_micro_usd)
      FROM delta GROUP BY 1, 2, 3
    ON CONFLICT (project_id, day, model) DO UPDATE SET
      requests = md.requests + EXCLUDED.requests, input_tokens = md.input_tokens + EXCLUDED.input_tokens, output_tokens = md.output_tokens + EXCLUDED.output_tokens,
      input_cost_micro_usd = md.input_cost_micro_usd + EXCLUDED.input_cost_micro_usd, output_cost_micro_usd = md.output_cost_micro_usd + EXCLUDED.output_cost_micro_usd; -- an upsert's differences
  END IF; -- either way
  RETURN NULL; -- an AFTER trigger's result is ignored
END
$$;

-- Minutes are not backfilled: summing every minute row took longer than a statement may (20 s at
-- 10M rows), and reports read minutes only of a partial hour. usage_model_minutes holds in full the
-- minutes from the hour after the last one with usage (every minute row has its hour row): none of
-- them has a row yet, and every row they get from now on passes the new function. A report reads
-- the minutes before it from usage_minutes, as it did (usage-report.ts).
CREATE TABLE usage_model_minutes_start (minute timestamptz NOT NULL);
INSERT INTO usage_model_minutes_start (minute)
SELECT coalesce(max(hour) + interval '1 hour', date_bin('1 hour', now(), TIMESTAMPTZ 'epoch')) FROM usage_hours;

-- Hours and days backfilled from the tier each replaces, so a report reads the same sums either
-- way (a roll-up row whose minute rows were deleted included).
INSERT INTO usage_model_hours (project_id, model, hour, requests, input_tokens, output_tokens, input_cost_micro_usd, output_cost_micro_usd)
SELECT project_id, model, hour, sum(requests), sum(input_tokens), sum(output_tokens), sum(input_cost_micro_usd), sum(output_cost_micro_usd)
  FROM usage_hours GROUP BY 1, 2, 3;
INSERT INTO usage_model_days (project_id, model, day, requests, input_tokens, output_tokens, input_cost_micro_usd, output_cost_micro_usd)
SELECT project_id, model, day, sum(requests), sum(input_tokens), sum(output_tokens), sum(input_cost_micro_usd), sum(output_cost_micro_usd)
  FROM usage_days GROUP BY 1, 2, 3;
