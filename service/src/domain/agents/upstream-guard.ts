/**
 * The guards of the deployment's upstreams, one per llm agent (an agent is one upstream: its URL,
 * model and key): a circuit breaker (circuit-breaker.ts) and a retry budget (retry-budget.ts),
 * shared by the agent's own requests, the agents falling back to it and both of its endpoints.
 * Their state is read by /metrics and by /health/ready.
 */
import { CircuitBreaker, type BreakerState } from "./circuit-breaker.js";
import { RetryBudget } from "./retry-budget.js";

export interface GuardSettings {
  /** Failures within the window that open a breaker; 0: no breakers. */
  breakerFailures: number;
  breakerWindowMs: number;
  breakerCooldownMs: number;
  retryBudgetPercent: number;
  retryBudgetMin: number;
}

/** Told of what the guards do (the metrics and the log). */
export interface GuardListener {
  transition: (agent: string, from: BreakerState, to: BreakerState) => void;
  /** A call not made: the agent's breaker is open. */
  skipped: (agent: string) => void;
  /** A retry not made: the agent's retry budget is spent. */
  retryDenied: (agent: string) => void;
}

export interface UpstreamGuard {
  readonly breaker: Pick<CircuitBreaker, "acquire" | "succeeded" | "failed" | "abandoned" | "state">;
  readonly budget: Pick<RetryBudget, "called" | "tryRetry">;
  skipped: () => void;
  retryDenied: () => void;
  /** Milliseconds until the breaker lets a probe through (0 unless open). */
  retryInMs: () => number;
}

const ALWAYS_CLOSED = {
  acquire: () => true,
  succeeded() {},
  failed() {},
  abandoned() {},
  state: "closed" as const,
};

/** No breaker, an unlimited budget: for callers built without guards (unit uses). */
export const UNGUARDED: UpstreamGuard = {
  breaker: ALWAYS_CLOSED,
  budget: { called() {}, tryRetry: () => true },
  skipped() {},
  retryDenied() {},
  retryInMs: () => 0,
};

export const DEFAULT_GUARD_SETTINGS: GuardSettings = {
  breakerFailures: 5,
  breakerWindowMs: 30_000,
  breakerCooldownMs: 30_000,
  retryBudgetPercent: 20,
  retryBudgetMin: 10,
};

const QUIET: GuardListener = { transition() {}, skipped() {}, retryDenied() {} };

export class UpstreamGuards {
  private readonly guards = new Map<string, { guard: UpstreamGuard; breaker?: CircuitBreaker }>();

  private readonly settings: GuardSettings;
  private readonly listener: GuardListener;
  private readonly now: () => number;

  constructor(
    settings: GuardSettings = DEFAULT_GUARD_SETTINGS,
    listener: GuardListener = QUIET,
    now: () => number = () => Date.now(),
  ) {
    this.settings = settings;
    this.listener = listener;
    this.now = now;
  }

  /** The agent's guard, made on first use. */
  of(agent: string): UpstreamGuard {
    const known = this.guards.get(agent);
    if (known) return known.guard;
    const s = this.settings;
    const breaker =
      s.breakerFailures > 0
        ? new CircuitBreaker(
            { failures: s.breakerFailures, windowMs: s.breakerWindowMs, cooldownMs: s.breakerCooldownMs },
            this.now,
            (from, to) => this.listener.transition(agent, from, to),
          )
        : undefined;
    const budget = new RetryBudget(
      { percent: s.retryBudgetPercent, min: s.retryBudgetMin, windowMs: s.breakerWindowMs },
      this.now,
    );
    const guard: UpstreamGuard = {
      breaker: breaker ?? ALWAYS_CLOSED,
      budget,
      skipped: () => this.listener.skipped(agent),
      retryDenied: () => this.listener.retryDenied(agent),
      retryInMs: () => (breaker?.state === "open" ? breaker.openFor() : 0),
    };
    this.guards.set(agent, { guard, breaker });
    return guard;
  }

  /** Each guarded upstream's breaker state, by agent id. */
  states(): Record<string, BreakerState> {
    const out: Record<string, BreakerState> = {};
    for (const [agent, { guard }] of this.guards) out[agent] = guard.breaker.state;
    return out;
  }
}
