/**
 * Money in /metrics: spend per project and model (USD, from the runs' integer micro-dollars),
 * budget alerts raised (80% and 100%, once per budget and period) and runs refused by a budget.
 * Spend is summed in a plain map on the hot path and read at scrape time, as the chat metrics are.
 */
import { Counter, type Registry } from "prom-client";
/** Micro-dollars as USD (the domain's cost.ts; metrics sit below the domain layer). */
const usd = (micros: number) => micros / 1_000_000;

export type BudgetScope = "key" | "project";

export class SpendMetrics {
  /** JSON [project, model] → micro-dollars. */
  private readonly spent = new Map<string, number>();
  private readonly alerts: Counter<"scope" | "threshold">;
  private readonly refusals: Counter<"scope">;

  constructor(registry: Registry) {
    const spent = this.spent;
    new Counter({
      name: "agentport_spend_usd_total",
      help: "What runs cost (their tokens × their agent's price), USD, by project and model",
      labelNames: ["project", "model"] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [pair, micros] of spent) {
          const [project, model] = JSON.parse(pair) as [string, string];
          this.inc({ project, model }, usd(micros));
        }
      },
    });
    this.alerts = new Counter({
      name: "agentport_budget_alerts_total",
      help: "Budgets that passed 80% or 100% of their limit, counted once per budget and period",
      labelNames: ["scope", "threshold"] as const,
      registers: [registry],
    });
    this.refusals = new Counter({
      name: "agentport_budget_refusals_total",
      help: "Runs refused with 429 insufficient_quota because a key's or project's budget was spent",
      labelNames: ["scope"] as const,
      registers: [registry],
    });
    for (const scope of ["key", "project"] as const) this.refusals.inc({ scope }, 0);
  }

  spend(projectId: string, model: string, micros: number): void {
    const pair = JSON.stringify([projectId, model]);
    this.spent.set(pair, (this.spent.get(pair) ?? 0) + micros);
  }

  alert(scope: BudgetScope, threshold: 80 | 100): void {
    this.alerts.inc({ scope, threshold: String(threshold) });
  }

  refused(scope: BudgetScope): void {
    this.refusals.inc({ scope });
  }
}
