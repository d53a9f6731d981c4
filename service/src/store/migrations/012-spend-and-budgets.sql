-- Spend per project, key, model and minute, in integer micro-dollars (never floats): a run's
-- tokens × its agent's price, split as OpenAI's costs API splits line items (input, output).
ALTER TABLE usage_minutes ADD COLUMN input_cost_micro_usd bigint NOT NULL DEFAULT 0;
ALTER TABLE usage_minutes ADD COLUMN output_cost_micro_usd bigint NOT NULL DEFAULT 0;

-- A key's own budget: its limit in micro-dollars and its period (30s, 15m, 12h, 7d, 1mo, total);
-- null: none of its own (its project's budget still applies).
ALTER TABLE api_keys ADD COLUMN budget_micro_usd bigint;
ALTER TABLE api_keys ADD COLUMN budget_period text;

-- A project's budget, set by an owner. A project without a row has the deployment's default
-- (BUDGET_PROJECT_USD), if any. `set_at` anchors a duration's periods.
CREATE TABLE project_budgets (
  project_id text PRIMARY KEY,
  limit_micro_usd bigint NOT NULL,
  period text NOT NULL,
  set_at timestamptz NOT NULL DEFAULT now()
);
