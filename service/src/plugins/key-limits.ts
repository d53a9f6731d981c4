/**
 * Per-key limits (requests and tokens per minute) and the one metered path of every agent run.
 *
 * Counted: every request under /v1 and /mcp is one request unit, except a chat completion, whose
 * request is its run: every agent run (a chat completion, JSON or streamed; an MCP `ask_*` tool
 * call — a batch of 16 is 16 runs) costs one request unit and reserves its token estimate
 * (domain/limits/estimate.ts) in the same atomic step, at most one Redis round trip (none while the
 * replica holds credit, domain/limits/leased-windows.ts); its end settles the
 * window to the actual tokens. Limits: the key's own `rate_limits`, capped by RATE_LIMIT_RPM/TPM,
 * else those.
 *
 * Answers under a limit carry OpenAI's headers (`x-ratelimit-limit-*`, `-remaining-*`, `-reset-*`
 * for requests and tokens, remaining after this request's reservation); over it, 429
 * `rate_limit_exceeded` with Retry-After. A run whose own size is above the key's whole TPM is
 * refused up front (OpenAI's "Request too large"), whatever the window holds.
 *
 * Money on the same path: a run of a key or project with a budget reserves its estimated cost
 * (tokens × its agent's price) in the same script and round trip as its tokens, and settles it to
 * the actual cost; a spent budget refuses with 429 `insufficient_quota`, naming it and its reset.
 * Keys with no limit and no budget skip all of it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import fp from "fastify-plugin";
import {
  budgetExceeded,
  keyRateLimited,
  keyTokensRateLimited,
  requestTooLargeForTpm,
  type ApiError,
} from "../errors.js";
import type { ChatMessage } from "../domain/agents/types.js";
import type { KeyBudget } from "../domain/api-keys.js";
import { tokenCounter } from "../domain/agents/tokens.js";
import { estimateRun, tokensToReserve, type RunEstimate } from "../domain/limits/estimate.js";
import { KeyLimiter, type Reserved } from "../domain/limits/key-limiter.js";
import { MeteredRun, type RunOwner } from "../domain/limits/metered-run.js";
import { ALERT_100, ALERT_80, type KeyLimits as WindowLimits, type SpendDecision } from "../domain/limits/windows.js";
import { runCost, usd, type Price } from "../domain/spend/cost.js";
import { ProjectBudgets } from "../domain/spend/project-budgets.js";
import { recordedSpend } from "../domain/spend/recorded-spend.js";
import { runBudgets, type RunBudget } from "../domain/spend/run-budgets.js";
import { BudgetAlerts } from "../domain/spend/budget-alerts.js";
import { LeasedWindows } from "../domain/limits/leased-windows.js";
import { RedisWindows } from "../domain/limits/redis-windows.js";
import { tracedWindows } from "../domain/limits/traced-windows.js";

/** A caller of a run: the key that pays for it and its own limits, if any. */
export interface RunPrincipal extends RunOwner {
  rpm?: number;
  tpm?: number;
  budget?: KeyBudget;
  createdAtMs?: number;
}

export interface RunAsk {
  model: string;
  messages: readonly ChatMessage[];
  maxTokens?: number;
  /** The agent's own cap on its answer, if it has one. */
  agentCap?: number;
  /** The prompt's estimate when it is not chat messages (an embeddings input); replaces theirs. */
  promptTokens?: number;
  /** Counts the prompt with the tokenizer, asked only when the estimate is above the key's whole TPM. */
  exactPrompt?: () => Promise<number>;
  /** The agent's price; default: the price of the agent `model` names. */
  price?: Price;
}

/** A run that may start, with the headers its answer carries. */
export interface StartedRun {
  run: MeteredRun;
  headers: Record<string, string>;
}

export interface KeyLimits {
  /** One request unit for a request that did not become a run (a refused chat body); throws the 429 past the limit. */
  countRequest(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Reserves a run's request unit and token estimate; throws the 429 when the key is over a limit. */
  startRun(principal: RunPrincipal, ask: RunAsk): Promise<StartedRun>;
  /** "redis", "memory" (no REDIS_URL) or "degraded" (Redis away: counted per replica). */
  readonly mode: "redis" | "memory" | "degraded";
}

declare module "fastify" {
  interface FastifyInstance {
    /** onRequest hook: one request unit against the key's RPM (routes whose request is a run skip it). */
    limitKeyRequests: (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;
    keyLimits: KeyLimits;
    projectBudgets: ProjectBudgets;
    budgetAlerts: BudgetAlerts;
  }
  interface FastifyContextConfig {
    /** The route's request is an agent run: it is counted when the run is reserved, not here. */
    meteredRun?: boolean;
  }
}

/** A duration as OpenAI writes it in `x-ratelimit-reset-*`: `1s`, `6m0s`, `250ms`. */
export function resetDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  const s = Math.ceil(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${s % 60}s`;
}

/**
 * A key's limit: its own, capped by the deployment's (a key made before the deployment lowered its
 * limit gets no more than the rest), else the deployment's.
 */
function effectiveLimit(own: number | undefined, deployment: number | undefined): number | undefined {
  if (own === undefined) return deployment;
  return deployment === undefined ? own : Math.min(own, deployment);
}

/** The headers of one decision, for the limits the key has. */
function limitHeaders(decision: Reserved, rpm: number | undefined, tpm: number | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  const reset = resetDuration(decision.resetMs);
  if (rpm !== undefined) {
    headers["x-ratelimit-limit-requests"] = String(rpm);
    headers["x-ratelimit-remaining-requests"] = String(Math.max(0, rpm - decision.requests));
    headers["x-ratelimit-reset-requests"] = reset;
  }
  if (tpm !== undefined) {
    headers["x-ratelimit-limit-tokens"] = String(tpm);
    headers["x-ratelimit-remaining-tokens"] = String(Math.max(0, tpm - decision.tokens));
    headers["x-ratelimit-reset-tokens"] = reset;
  }
  return headers;
}

/** The 429 for a refused reservation: the request limit when it is the one reached, else the tokens. */
function refusal(
  decision: Reserved,
  rpm: number | undefined,
  tpm: number | undefined,
  headers: Record<string, string>,
): { err: ApiError; kind: "requests" | "tokens" } {
  const reset = resetDuration(decision.resetMs);
  const retryAfter = Math.max(1, Math.ceil(decision.resetMs / 1000));
  const err =
    rpm !== undefined && decision.requests >= rpm
      ? { err: keyRateLimited(rpm, reset, retryAfter), kind: "requests" as const }
      : { err: keyTokensRateLimited(tpm!, decision.tokens, reset, retryAfter), kind: "tokens" as const };
  err.err.headers = { ...headers, ...err.err.headers };
  return err;
}

/** The 429 for a spent budget, naming it and when it resets. */
function budgetRefusal(budget: RunBudget): ApiError {
  return budgetExceeded(budget.scope, usd(budget.limit), budget.period, budget.end);
}

/**
 * The tokens a run reserves under `tpm` (its estimate, the default answer cap clamped to the
 * limit); throws OpenAI's "Request too large" when the run's own size is above the whole limit,
 * after counting its prompt with the tokenizer (the estimate errs high for some scripts).
 */
async function tokensUnder(tpm: number, estimate: RunEstimate, ask: RunAsk): Promise<number> {
  let tokens = tokensToReserve(estimate, tpm);
  if (tokens === "too large") {
    const exact =
      ask.exactPrompt ?? (ask.messages.length ? async () => (await tokenCounter()).prompt(ask.messages) : undefined);
    if (exact) estimate.prompt = Math.min(estimate.prompt, await exact());
    tokens = tokensToReserve(estimate, tpm);
  }
  if (tokens === "too large")
    throw requestTooLargeForTpm(tpm, estimate.prompt + (estimate.completionAsked ? estimate.completion : 0));
  // The settlement is relative to what was reserved: the answer's part is what the limit left for it.
  estimate.completion = tokens - estimate.prompt;
  return tokens;
}

interface SpendDeps {
  limiter: KeyLimiter;
  alerts: BudgetAlerts;
  refused(scope: "key" | "project"): void;
  rateLimited(kind: "requests" | "tokens"): void;
}

/** The alerts a reservation raised: each budget's thresholds passed for the first time in its window. */
function raiseCrossed(alerts: BudgetAlerts, budgets: RunBudget[], spend: SpendDecision): void {
  spend.crossed.forEach((bits, i) => {
    const b = budgets[i];
    const alert = { scope: b.scope, id: b.ownerId, projectId: b.projectId, limitMicros: b.limit };
    const rest = { spentMicros: spend.spent[i] ?? 0, period: b.period, resetsAt: b.end };
    if (bits & ALERT_80) alerts.raise({ ...alert, ...rest, threshold: 80 });
    if (bits & ALERT_100) alerts.raise({ ...alert, ...rest, threshold: 100 });
  });
}

/** As a plain reservation, with the run's estimated cost against its budgets; throws the 429 of whichever refused. */
async function reserveWithBudgets(
  deps: SpendDeps,
  keyId: string,
  limits: { rpm?: number; tpm?: number },
  tokens: number,
  ask: { cost: number; budgets: RunBudget[] },
): Promise<{ reserved: Reserved; headers: Record<string, string> }> {
  const windows: WindowLimits = { rpm: limits.rpm ?? 0, tpm: limits.tpm ?? 0 };
  const reserved = await deps.limiter.reserveSpend(keyId, windows, tokens, ask);
  if (reserved.spend) raiseCrossed(deps.alerts, ask.budgets, reserved.spend);
  const headers = limitHeaders(reserved, limits.rpm, limits.tpm);
  if (reserved.allowed) return { reserved, headers };
  const refused = reserved.spend?.refused;
  if (refused !== undefined) {
    deps.refused(ask.budgets[refused].scope);
    throw budgetRefusal(ask.budgets[refused]);
  }
  const { err, kind } = refusal(reserved, limits.rpm, limits.tpm, headers);
  deps.rateLimited(kind);
  throw err;
}

/** The limiter (Redis, else memory), its budget windows seeded from the usage rows, and the budget alerts. */
function limiterOf(app: FastifyInstance): { limiter: KeyLimiter; alerts: BudgetAlerts; spendDeps: SpendDeps } {
  const alerts = new BudgetAlerts(
    app.log,
    (scope, threshold) => app.spendMetrics.alert(scope, threshold),
    app.config.budgets.webhookUrl,
  );
  // A budget's window the limiter does not hold yet starts from what the usage rows recorded in it
  // (this replica's latest sums written first).
  const seed = async (window: unknown): Promise<number> => {
    const b = window as RunBudget;
    await app.usage.flush().catch(() => {});
    const scope = { projectId: b.projectId, keyId: b.scope === "key" ? b.ownerId : undefined };
    return recordedSpend(app.db, scope, b.start);
  };
  const limiter = new KeyLimiter(
    app.redis && new LeasedWindows(tracedWindows(new RedisWindows(app.redis))),
    app.log,
    app.metrics.limiterDegraded,
    seed,
  );
  const spendDeps: SpendDeps = {
    limiter,
    alerts,
    refused: (scope) => app.spendMetrics.refused(scope),
    rateLimited: (kind) => app.metrics.rateLimited(kind),
  };
  return { limiter, alerts, spendDeps };
}

export default fp(
  async (app) => {
    const projectBudgets = new ProjectBudgets(app.db, app.config.budgets.project);
    const { limiter, alerts, spendDeps } = limiterOf(app);
    const spendMetrics = app.spendMetrics;
    const sinks = {
      limiter,
      usage: app.usage,
      chat: app.chatMetrics,
      spend: (projectId: string, model: string, micros: number) => spendMetrics.spend(projectId, model, micros),
    };
    // Registered after Redis, so this runs before its connection closes.
    app.addHook("onClose", () => limiter.close());
    const { rateLimitRpm, rateLimitTpm } = app.config;

    /** Reserves and answers the headers, or throws the 429. */
    async function reserve(
      keyId: string,
      rpm: number | undefined,
      tpm: number | undefined,
      tokens: number,
    ): Promise<{ reserved: Reserved; headers: Record<string, string> }> {
      const reserved = await limiter.reserve(keyId, { rpm: rpm ?? 0, tpm: tpm ?? 0 }, tokens);
      const headers = limitHeaders(reserved, rpm, tpm);
      if (reserved.allowed) return { reserved, headers };
      const { err, kind } = refusal(reserved, rpm, tpm, headers);
      app.metrics.rateLimited(kind);
      throw err;
    }

    async function startRun(principal: RunPrincipal, ask: RunAsk): Promise<StartedRun> {
      const estimate = estimateRun(ask.messages, ask.maxTokens, ask.agentCap);
      if (ask.promptTokens !== undefined) estimate.prompt = ask.promptTokens;
      const rpm = effectiveLimit(principal.rpm, rateLimitRpm);
      const tpm = effectiveLimit(principal.tpm, rateLimitTpm);
      const price = ask.price ?? app.agents.resolve(principal.projectId, ask.model)?.price;
      const project = await projectBudgets.get(principal.projectId);
      const budgets = principal.budget || project ? runBudgets(principal, project, Date.now()) : [];
      let tokens = 0;
      if (tpm !== undefined) {
        try {
          tokens = await tokensUnder(tpm, estimate, ask);
        } catch (err) {
          app.metrics.rateLimited("tokens");
          throw err;
        }
      }
      const costOf = (e: RunEstimate) => runCost(price, { prompt: e.prompt, completion: e.completion });
      const estimated = costOf(estimate);
      const cost = estimated.input + estimated.output;
      const run = (reserved: Reserved | undefined) =>
        new MeteredRun(sinks, principal, ask.model, estimate, { reserved, price, cost }, tpm !== undefined);
      if (budgets.length > 0) {
        const { reserved, headers } = await reserveWithBudgets(spendDeps, principal.keyId, { rpm, tpm }, tokens, {
          cost,
          budgets,
        });
        return { run: run(reserved), headers };
      }
      if (rpm === undefined && tpm === undefined) return { run: run(undefined), headers: {} };
      const { reserved, headers } = await reserve(principal.keyId, rpm, tpm, tokens);
      return { run: run(tpm === undefined ? undefined : reserved), headers };
    }

    /** One request unit against the key's RPM, with its headers. */
    async function countRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      const rpm = effectiveLimit(request.auth.rpm, rateLimitRpm);
      if (rpm === undefined) return;
      const { headers } = await reserve(request.auth.keyId, rpm, undefined, 0);
      void reply.headers(headers);
    }
    app.decorate("projectBudgets", projectBudgets);
    app.decorate("budgetAlerts", alerts);
    app.decorate("keyLimits", {
      get mode() {
        return limiter.mode;
      },
      countRequest,
      startRun,
    });

    app.decorate("limitKeyRequests", (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
      if ((request.auth.rpm ?? rateLimitRpm) === undefined || request.routeOptions.config.meteredRun) return done();
      countRequest(request, reply).then(() => done(), done);
    });
  },
  { name: "key-limits", dependencies: ["api-keys", "redis", "metrics", "usage"] },
);
