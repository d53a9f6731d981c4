/** Bounds on how an upstream that fails is called again (domain/agents/upstream-guard.ts). */
import { DEFAULT_GUARD_SETTINGS, type GuardSettings } from "../domain/agents/upstream-guard.js";
import { int, positiveSeconds, type Env } from "./env-readers.js";

/** Per-upstream circuit breakers and retry budgets (UPSTREAM_BREAKER_*, UPSTREAM_RETRY_BUDGET_*). */
export function upstreamGuards(env: Env): GuardSettings {
  const d = DEFAULT_GUARD_SETTINGS;
  return {
    breakerFailures: int(env, "UPSTREAM_BREAKER_FAILURES", d.breakerFailures, 0, 10_000),
    breakerWindowMs: positiveSeconds(env, "UPSTREAM_BREAKER_WINDOW_SECONDS", d.breakerWindowMs / 1000) * 1000,
    breakerCooldownMs: positiveSeconds(env, "UPSTREAM_BREAKER_COOLDOWN_SECONDS", d.breakerCooldownMs / 1000) * 1000,
    retryBudgetPercent: int(env, "UPSTREAM_RETRY_BUDGET_PERCENT", d.retryBudgetPercent, 0, 100),
    retryBudgetMin: int(env, "UPSTREAM_RETRY_BUDGET_MIN", d.retryBudgetMin, 0, 10_000),
  };
}
