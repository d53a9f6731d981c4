/**
 * "Seeing it coming": when a key's or project's budget passes 80% and 100% of its limit (once per
 * budget and period: the limiter's windows mark each alert raised, limits/redis-windows.ts), a log
 * line, a metric, and — with BUDGET_WEBHOOK_URL — a POST an SRE can route to their alerting.
 *
 * The webhook never holds a request: `raise` queues and returns. Deliveries go one at a time, each
 * bounded (TIMEOUT_MS), retried ATTEMPTS times with a doubling backoff on a network error or a 5xx
 * or 429; the queue is bounded (MAX_QUEUED: past it an alert is dropped with a log line — its log
 * line and metric were already written).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { usd } from "./cost.js";

export const TIMEOUT_MS = 5_000;
export const ATTEMPTS = 4;
export const MAX_QUEUED = 256;
const BACKOFF_MS = 500;

export interface BudgetAlert {
  scope: "key" | "project";
  /** The key's id, or the project's. */
  id: string;
  projectId: string;
  threshold: 80 | 100;
  limitMicros: number;
  spentMicros: number;
  period: string;
  /** Epoch ms the period ends; null: never (total). */
  resetsAt: number | null;
}

export interface AlertLog {
  warn(obj: object, msg: string): void;
}

export class BudgetAlerts {
  private readonly queue: BudgetAlert[] = [];
  private sending = false;
  private readonly log: AlertLog;
  private readonly counted: (scope: "key" | "project", threshold: 80 | 100) => void;
  private readonly webhookUrl: string | undefined;
  private readonly post: typeof fetch;
  private readonly backoffMs: number;

  constructor(
    log: AlertLog,
    counted: (scope: "key" | "project", threshold: 80 | 100) => void,
    webhookUrl?: string,
    post: typeof fetch = fetch,
    backoffMs = BACKOFF_MS,
  ) {
    this.log = log;
    this.counted = counted;
    this.webhookUrl = webhookUrl;
    this.post = post;
    this.backoffMs = backoffMs;
  }

  /** Logs and counts the alert, and queues its webhook; returns at once. */
  raise(alert: BudgetAlert): void {
    this.counted(alert.scope, alert.threshold);
    this.log.warn(
      {
        budget: alert.scope,
        id: alert.id,
        projectId: alert.projectId,
        threshold: alert.threshold,
        limitUsd: usd(alert.limitMicros),
        spentUsd: usd(alert.spentMicros),
        period: alert.period,
        resetsAt: alert.resetsAt === null ? null : new Date(alert.resetsAt).toISOString(),
      },
      `budget: the ${alert.scope}'s budget passed ${alert.threshold}% of its limit`,
    );
    if (!this.webhookUrl) return;
    if (this.queue.length >= MAX_QUEUED) {
      this.log.warn(
        { budget: alert.scope, id: alert.id },
        "budget: the webhook queue is full; this alert is not posted",
      );
      return;
    }
    this.queue.push(alert);
    // Deliveries run beside requests; a failure ends in a log line, never a rejection.
    if (!this.sending) void this.drain();
  }

  /** Resolves once the queue is empty (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.sending) await sleep(10);
  }

  private async drain(): Promise<void> {
    this.sending = true;
    try {
      for (let alert = this.queue.shift(); alert; alert = this.queue.shift()) await this.deliver(alert);
    } finally {
      this.sending = false;
    }
  }

  private async deliver(alert: BudgetAlert): Promise<void> {
    const body = JSON.stringify({
      type: "budget.threshold",
      budget: alert.scope,
      id: alert.id,
      project_id: alert.projectId,
      threshold: alert.threshold,
      limit_usd: usd(alert.limitMicros),
      spent_usd: usd(alert.spentMicros),
      period: alert.period,
      resets_at: alert.resetsAt === null ? null : Math.floor(alert.resetsAt / 1000),
    });
    let why = "";
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        const res = await this.post(this.webhookUrl!, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
        await res.body?.cancel();
        if (res.ok) return;
        why = `HTTP ${res.status}`;
        if (res.status < 500 && res.status !== 429) break;
      } catch (err) {
        why = (err as Error).name === "TimeoutError" ? "timeout" : (err as Error).message;
      }
      if (attempt < ATTEMPTS) await sleep(this.backoffMs * 2 ** (attempt - 1));
    }
    this.log.warn({ budget: alert.scope, id: alert.id, why }, "budget: the alert webhook did not take the alert");
  }
}
