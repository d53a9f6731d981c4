/**
 * Budgets on the wire, shared by the HTTP routes and the CLI: `{limit_usd, period}` checked (a 400
 * naming the field), a key's budget held under its project's, and the spend and reset shown beside.
 */
import { invalidParam } from "../../errors.js";
import type { Queryable } from "../../store/db.js";
import type { KeyBudget } from "../api-keys.js";
import { PERIOD_SYNTAX, parsePeriod, periodWindow } from "./budget-period.js";
import { MICROS_PER_USD, microsOf, usd } from "./cost.js";
import type { ProjectBudget } from "./project-budgets.js";
import { recordedSpend } from "./recorded-spend.js";

/** The largest budget accepted: a billion dollars (and exact in micro-dollars as a double). */
export const MAX_BUDGET_USD = 1_000_000_000;

/** A budget as a client writes it. */
export interface BudgetBody {
  limit_usd: number;
  period: string;
}

/** Checks a budget a client sent; `param` prefixes the field names in errors (`budget`). */
export function budgetOf(body: BudgetBody, param: string): KeyBudget {
  if (!(body.limit_usd > 0 && body.limit_usd <= MAX_BUDGET_USD) || microsOf(body.limit_usd) < 1)
    throw invalidParam(
      `${param}.limit_usd`,
      `Invalid value for '${param}.limit_usd': ${body.limit_usd}; give USD above 0 and at most ${MAX_BUDGET_USD}.`,
    );
  if (parsePeriod(body.period) === undefined)
    throw invalidParam(
      `${param}.period`,
      `Invalid value for '${param}.period': '${String(body.period).slice(0, 50)}'; give ${PERIOD_SYNTAX}.`,
    );
  return { limitMicros: microsOf(body.limit_usd), period: body.period };
}

/** A key's budget may not exceed its project's, as its limits may not exceed the deployment's. */
export function refuseAboveProject(budget: KeyBudget, project: ProjectBudget | undefined, param: string): void {
  if (!project || budget.limitMicros <= project.limitMicros) return;
  const source = project.isDefault ? " (the deployment's default, BUDGET_PROJECT_USD)" : "";
  throw invalidParam(
    `${param}.limit_usd`,
    `Invalid value for '${param}.limit_usd': $${usd(budget.limitMicros)} is above this project's budget of $${usd(project.limitMicros)} per ${project.period}${source}; a key's budget may only be lower.`,
  );
}

/** What a budget shows beside its limit: spent in its current period, and when that ends. */
export interface SpendView {
  spent_usd: number;
  /** Unix seconds the period ends; null: never (total, or no budget). */
  resets_at: number | null;
}

/**
 * The spend of a key (or a project) in its budget's current period, from the usage rows; without a
 * budget, everything it spent.
 */
export async function spendView(
  db: Queryable,
  scope: { projectId: string; keyId?: string },
  budget: KeyBudget | undefined,
  anchorMs: number,
  now = Date.now(),
): Promise<SpendView> {
  const window = budget ? periodWindow(parsePeriod(budget.period) ?? { kind: "total" }, anchorMs, now) : undefined;
  const spent = await recordedSpend(db, scope, window?.start ?? 0);
  return {
    spent_usd: spent / MICROS_PER_USD,
    resets_at: window?.end == null ? null : Math.floor(window.end / 1000),
  };
}

/** A budget on the wire. */
export const budgetView = (b: KeyBudget | null | undefined) =>
  b ? { limit_usd: usd(b.limitMicros), period: b.period } : null;
