/**
 * Projects' budgets (an owner's, in `project_budgets`; else the deployment's default,
 * BUDGET_PROJECT_USD). The spend recorded in a budget's window is recorded-spend.ts's.
 *
 * The limiter asks a project's budget on every run of a project, so each replica keeps them for
 * CACHE_MS: an owner's change reaches every replica within that (the replica that made it at once).
 * A project without a row is cached too, so projects without budgets cost one query per CACHE_MS.
 */
import type { Queryable } from "../../store/db.js";
import type { BudgetSetting } from "./budget-setting.js";

/** How long a replica trusts a project's budget it read. */
export const CACHE_MS = 5_000;

/** A project's budget as the limiter uses it: its limit, period and anchor (when it was set, epoch ms). */
export interface ProjectBudget extends BudgetSetting {
  anchorMs: number;
  /** Whether it is the deployment's default (no row of its own). */
  isDefault: boolean;
}

interface Row {
  limit_micro_usd: string | number;
  period: string;
  set_at: Date | string;
}

export class ProjectBudgets {
  private readonly cache = new Map<string, { at: number; budget: Promise<ProjectBudget | undefined> }>();
  private readonly db: Queryable;
  private readonly fallback: BudgetSetting | undefined;
  private readonly now: () => number;

  constructor(db: Queryable, fallback: BudgetSetting | undefined, now: () => number = () => Date.now()) {
    this.db = db;
    this.fallback = fallback;
    this.now = now;
  }

  /** The project's budget (its own, else the default), from the cache when fresh. */
  get(projectId: string): Promise<ProjectBudget | undefined> {
    const now = this.now();
    const hit = this.cache.get(projectId);
    if (hit && now - hit.at < CACHE_MS) return hit.budget;
    const budget = this.read(projectId);
    this.cache.set(projectId, { at: now, budget });
    // A failed read is not kept: the next run asks the store again.
    budget.catch(() => this.cache.get(projectId)?.budget === budget && this.cache.delete(projectId));
    if (this.cache.size > 10_000) this.cache.delete(this.cache.keys().next().value!);
    return budget;
  }

  /** Sets (or replaces) the project's own budget; its periods start now. */
  async set(projectId: string, limitMicros: number, period: string): Promise<ProjectBudget> {
    const { rows } = await this.db.query<Row>(
      `INSERT INTO project_budgets (project_id, limit_micro_usd, period) VALUES ($1, $2, $3)
       ON CONFLICT (project_id) DO UPDATE SET limit_micro_usd = EXCLUDED.limit_micro_usd, period = EXCLUDED.period, set_at = now()
       RETURNING limit_micro_usd, period, set_at`,
      [projectId, limitMicros, period],
    );
    this.cache.delete(projectId);
    return toBudget(rows[0]);
  }

  /** Removes the project's own budget (the default, if any, applies again); false when it had none. */
  async delete(projectId: string): Promise<boolean> {
    const { rows } = await this.db.query("DELETE FROM project_budgets WHERE project_id = $1 RETURNING project_id", [
      projectId,
    ]);
    this.cache.delete(projectId);
    return rows.length > 0;
  }

  private async read(projectId: string): Promise<ProjectBudget | undefined> {
    const { rows } = await this.db.query<Row>(
      "SELECT limit_micro_usd, period, set_at FROM project_budgets WHERE project_id = $1",
      [projectId],
    );
    if (rows[0]) return toBudget(rows[0]);
    // The default's periods count from the epoch: the same windows on every replica.
    return this.fallback && { ...this.fallback, anchorMs: 0, isDefault: true };
  }
}

function toBudget(r: Row): ProjectBudget {
  return {
    limitMicros: Number(r.limit_micro_usd),
    period: r.period,
    anchorMs: new Date(r.set_at).getTime(),
    isDefault: false,
  };
}
