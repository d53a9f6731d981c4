/**
 * The budgets a run is checked against: its key's own and its project's, each in the window its
 * period is in now (budget-period.ts), as the limiter's windows take them. Pure but for the
 * project's budget, which the caller looks up.
 */
import type { KeyBudget } from "../api-keys.js";
import type { BudgetWindow } from "../limits/windows.js";
import { parsePeriod, periodWindow } from "./budget-period.js";
import type { ProjectBudget } from "./project-budgets.js";

/** A budget window with what a refusal or an alert says about it. */
export interface RunBudget extends BudgetWindow {
  scope: "key" | "project";
  period: string;
  /** The key's or the project's id. */
  ownerId: string;
  projectId: string;
}

export function runBudgets(
  key: { keyId: string; projectId: string; budget?: KeyBudget; createdAtMs?: number },
  project: ProjectBudget | undefined,
  now: number,
): RunBudget[] {
  const budgets: RunBudget[] = [];
  const add = (scope: "key" | "project", ownerId: string, limit: number, period: string, anchor: number) => {
    const parsed = parsePeriod(period);
    if (!parsed) return; // validated when set; a row edited by hand to nonsense is no budget
    const { start, end } = periodWindow(parsed, anchor, now);
    budgets.push({ id: `${scope}:${ownerId}`, scope, ownerId, projectId: key.projectId, limit, period, start, end });
  };
  if (key.budget) add("key", key.keyId, key.budget.limitMicros, key.budget.period, key.createdAtMs ?? 0);
  if (project) add("project", key.projectId, project.limitMicros, project.period, project.anchorMs);
  return budgets;
}
