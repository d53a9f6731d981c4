/**
 * Retries and fallbacks of an llm agent's upstream call, before the answer begins: each upstream
 * (the agent's own, then its fallbacks' in order) is tried up to its `retries.attempts` times on a
 * connect error, 429 or 5xx, waiting the upstream's Retry-After when it gives one, else a backoff
 * with full jitter; all of it within the request's budget (LLM_TIMEOUT_SECONDS), each try's own
 * wait for headers cut to what is left. Once an upstream answered 2xx, nothing is retried: its
 * answer is the one relayed (and metered), however it ends.
 *
 * Each upstream has a guard (upstream-guard.ts): a circuit breaker that, once open, skips the
 * upstream straight to the next fallback, and a retry budget past which a failure is not retried.
 * An upstream is only ever called for a project its agent's `projects` admits, however it is
 * reached (directly, by alias, as another agent's fallback, from MCP).
 *
 * Written here rather than with a retry library (p-retry, exponential-backoff): none both waits a
 * per-failure Retry-After and moves across several upstreams under one deadline, and their waits
 * do not end when the client leaves.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Dispatcher } from "undici";
import { upstreamUnavailable } from "../../errors.js";
import type { RetrySpec } from "./agent-spec.js";
import type { AgentContext, ChatRequest } from "./types.js";
import { UNGUARDED, type UpstreamGuard } from "./upstream-guard.js";
import type { UpstreamErrorListener } from "./upstream-wire.js";

export interface UpstreamCaller {
  /** The agent whose upstream this is. */
  agentId: string;
  retries: RetrySpec;
  /** One call of the upstream (llm-agent.ts); a failure worth another try is `retryable`. */
  send(
    request: ChatRequest,
    ctx: AgentContext,
    stream: boolean,
    headersTimeout: number,
  ): Promise<Dispatcher.ResponseData>;
  onError: UpstreamErrorListener;
  /** Projects whose requests may reach this upstream (its agent's `projects`); undefined: all. */
  projects?: ReadonlySet<string>;
  /** The upstream's breaker and retry budget, shared by every caller of the same agent's upstream. */
  guard?: UpstreamGuard;
}

/** Told of each try of an upstream (by its agent id) and each move to a fallback (the metrics). */
export interface RetryListener {
  attempt(agentId: string): void;
  fallback(from: string, to: string): void;
}

/** Failures worth another try, with why (the upstream's status or the error's code) and its Retry-After. */
const retryables = new WeakMap<Error, { reason: string; retryAfter?: string }>();

export function retryable(err: Error, reason: string, retryAfter?: string): Error {
  retryables.set(err, { reason, retryAfter });
  return err;
}

/** The callers a request of `projectId` may reach: a fallback its project may not use is not tried. */
const admitted = (callers: UpstreamCaller[], projectId: string) =>
  callers.filter((c) => !c.projects || c.projects.has(projectId));

export async function sendWithRetries(
  chain: UpstreamCaller[],
  request: ChatRequest,
  ctx: AgentContext,
  stream: boolean,
  budgetMs: number,
  listener: RetryListener,
): Promise<{ res: Dispatcher.ResponseData; caller: UpstreamCaller }> {
  const deadline = Date.now() + budgetMs;
  const callers = admitted(chain, ctx.projectId);
  let last: unknown;
  let tried = false;
  for (const caller of callers) {
    if (caller !== callers[0]) {
      if (Date.now() >= deadline) break;
      listener.fallback(callers[0].agentId, caller.agentId);
    }
    const guard = caller.guard ?? UNGUARDED;
    if (!guard.breaker.acquire()) {
      guard.skipped();
      ctx.log.warn({ agent: caller.agentId, circuit: guard.breaker.state }, "upstream skipped: its circuit is open");
      continue;
    }
    tried = true;
    const outcome = await tryUpstream(caller, guard, request, ctx, stream, deadline, listener);
    if ("res" in outcome) return { res: outcome.res, caller };
    last = outcome.error ?? last;
  }
  if (!tried) {
    // Every upstream was skipped: come back when the first of them lets a probe through.
    const soonestMs = Math.min(...callers.map((c) => c.guard?.retryInMs() ?? 0), 60_000);
    throw upstreamUnavailable(Math.max(1, Math.ceil(soonestMs / 1000)));
  }
  throw last;
}

/** One upstream's tries: its answer, or the last failure once its tries, budget or breaker say move on. */
async function tryUpstream(
  caller: UpstreamCaller,
  guard: UpstreamGuard,
  request: ChatRequest,
  ctx: AgentContext,
  stream: boolean,
  deadline: number,
  listener: RetryListener,
): Promise<{ res: Dispatcher.ResponseData } | { error: unknown }> {
  let last: unknown;
  guard.budget.called();
  for (let attempt = 1; attempt <= caller.retries.attempts; attempt++) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    listener.attempt(caller.agentId);
    try {
      const res = await caller.send(request, ctx, stream, left);
      guard.breaker.succeeded();
      return { res };
    } catch (err) {
      const retry = retryables.get(err as Error);
      if (ctx.upstreamSignal.aborted) guard.breaker.abandoned();
      // A refusal that is not worth a retry (400, 401, 404…) is an answer: the upstream is up.
      else if (!retry) guard.breaker.succeeded();
      if (!retry || ctx.upstreamSignal.aborted) throw err;
      guard.breaker.failed();
      last = err;
      const log = { agent: caller.agentId, attempt, reason: retry.reason };
      if (attempt === caller.retries.attempts) break;
      if (guard.breaker.state !== "closed") {
        ctx.log.warn({ ...log, circuit: guard.breaker.state }, "upstream not retried: its circuit opened");
        break;
      }
      const wait = delayBeforeRetry(attempt, caller.retries, retry.retryAfter);
      // A wait past the deadline, or a Retry-After past the agent's longest wait: on to the next upstream.
      if (wait === undefined || Date.now() + wait >= deadline) break;
      if (!guard.budget.tryRetry()) {
        guard.retryDenied();
        ctx.log.warn(log, "upstream not retried: its retry budget is spent");
        break;
      }
      ctx.log.warn({ ...log, waitMs: Math.round(wait) }, "upstream call retried");
      await sleep(wait, undefined, { signal: ctx.signal });
    }
  }
  return { error: last };
}

/**
 * Milliseconds to wait before try `attempt + 1`: the upstream's Retry-After (seconds or an HTTP
 * date) if given, undefined when that is longer than `max_backoff_ms`; else full jitter.
 */
export function delayBeforeRetry(attempt: number, retries: RetrySpec, retryAfter?: string): number | undefined {
  if (retryAfter !== undefined) {
    const ms = retryAfterMs(retryAfter);
    if (ms !== undefined) return ms <= retries.max_backoff_ms ? ms : undefined;
  }
  return Math.random() * Math.min(retries.max_backoff_ms, retries.backoff_ms * 2 ** (attempt - 1));
}

function retryAfterMs(value: string): number | undefined {
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
