-- The costs API read every minute row of its range (growing with the usage rows) because the
-- roll-ups of migration 010 carried tokens only. They carry spend too now, in the same integer
-- micro-dollars, kept by the same statement triggers, so the costs API reads whole days and hours
-- from them as the usage API does (cost-report.ts).
-- First, writers wait: this lock conflicts with every insert and update of usage_minutes, so a
-- flush in flight commits before it (its sums already in the minute rows the backfill reads) and
-- the next one runs after this migration commits, with the new trigger function.
LOCK TABLE usage_minutes IN SHARE ROW EXCLUSIVE MODE;

ALTER TABLE usage_hours ADD COLUMN input_cost_micro_usd bigint NOT NULL DEFAULT 0;
ALTER TABLE usage_hours ADD COLUMN output_cost_micro_usd bigint NOT NULL DEFAULT 0;
ALTER TABLE usage_days ADD COLUMN input_cost_micro_usd bigint NOT NULL DEFAULT 0;
ALTER TABLE usage_days ADD COLUMN output_cost_micro_usd bigint NOT NULL DEFAULT 0;

-- Migration 010's function with the two cost columns added (the triggers call it by name; replacing keeps them).
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
        input_cost_micro_usd = h.input_cost_micro_usd + EXCLUDED.input_cost_micro_usd, output_cost_micro_usd = h.output_cost_micro_usd + EXCLUDED.output_cost_micro_usd)
    INSERT INTO usage_days AS d (project_id, api_key_id, model, day, requests, input_tokens, output_tokens, input_cost_micro_usd, output_cost_micro_usd)
    SELECT project_id, api_key_id, model, date_bin('1 day', minute, TIMESTAMPTZ 'epoch'), sum(requests), sum(input_tokens), sum(output_tokens), sum(input_cost_micro_usd), sum(output_cost_micro_usd)
      FROM delta GROUP BY 1, 2, 3, 4
    ON CONFLICT (project_id, day, api_key_id, model) DO UPDATE SET
      requests = d.requests + EXCLUDED.requests, input_tokens = d.input_tokens + EXCLUDED.input_tokens, output_tokens = d.output_tokens + EXCLUDED.output_tokens,
      input_cost_micro_usd = d.input_cost_micro_usd + EXCLUDED.input_cost_micro_usd, output_cost_micro_usd = d.output_cost_micro_usd + EXCLUDED.output_cost_micro_usd; -- new rows
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
        input_cost_micro_usd = h.input_cost_micro_usd + EXCLUDED.input_cost_micro_usd, output_cost_micro_usd = h.output_cost_micro_usd + EXCLUDED.output_cost_micro_usd)
    INSERT INTO usage_days AS d (project_id, api_key_id, model, day, requests, input_tokens, output_tokens, input_cost_micro_usd, output_cost_micro_usd)
    SELECT project_id, api_key_id, model, date_bin('1 day', minute, TIMESTAMPTZ 'epoch'), sum(requests), sum(input_tokens), sum(output_tokens), sum(input_cost_micro_usd), sum(output_cost_micro_usd)
      FROM delta GROUP BY 1, 2, 3, 4
    ON CONFLICT (project_id, day, api_key_id, model) DO UPDATE SET
      requests = d.requests + EXCLUDED.requests, input_tokens = d.input_tokens + EXCLUDED.input_tokens, output_tokens = d.output_tokens + EXCLUDED.output_tokens,
      input_cost_micro_usd = d.input_cost_micro_usd + EXCLUDED.input_cost_micro_usd, output_cost_micro_usd = d.output_cost_micro_usd + EXCLUDED.output_cost_micro_usd; -- an upsert's differences
  END IF; -- either way
  RETURN NULL; -- an AFTER trigger's result is ignored
END
$$;

-- The spend already in the minute rows, summed into the roll-up rows their tokens made (every roll-up
-- row has minute rows behind it, unless those were deleted: then its spend stays 0, as before this).
UPDATE usage_hours AS h SET input_cost_micro_usd = s.input, output_cost_micro_usd = s.output
  FROM (SELECT project_id, api_key_id, model, date_bin('1 hour', minute, TIMESTAMPTZ 'epoch') AS hour,
               sum(input_cost_micro_usd) AS input, sum(output_cost_micro_usd) AS output
          FROM usage_minutes GROUP BY 1, 2, 3, 4) AS s
 WHERE h.project_id = s.project_id AND h.hour = s.hour AND h.api_key_id = s.api_key_id AND h.model = s.model;
UPDATE usage_days AS d SET input_cost_micro_usd = s.input, output_cost_micro_usd = s.output
  FROM (SELECT project_id, api_key_id, model, date_bin('1 day', minute, TIMESTAMPTZ 'epoch') AS day,
               sum(input_cost_micro_usd) AS input, sum(output_cost_micro_usd) AS output
          FROM usage_minutes GROUP BY 1, 2, 3, 4) AS s
 WHERE d.project_id = s.project_id AND d.day = s.day AND d.api_key_id = s.api_key_id AND d.model = s.model;
