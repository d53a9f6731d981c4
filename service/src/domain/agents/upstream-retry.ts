/**
 * Retries and fallbacks of an llm agent's upstream call, before the answer begins: each upstream
 * (the agent's own, then its fallbacks' in order) is tried up to its `retries.attempts` times on a
 * connect error, 429 or 5xx, waiting the upstream's Retry-After when it gives one, else a backoff
 * with full jitter; all of it within the request's budget (LLM_TIMEOUT_SECONDS), each try's own
 * wait for headers cut to what is left. Once an upstream answered 2xx, nothing is retried: its
 * answer is the one relayed (and metered), however it ends.
 *
 * Written here rather than with a retry library (p-retry, exponential-backoff): none both waits a
 * per-failure Retry-After and moves across several upstreams under one deadline, and their waits
 * do not end when the client leaves.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Dispatcher } from "undici";
import type { RetrySpec } from "./agent-spec.js";
import type { AgentContext, ChatRequest } from "./types.js";
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
}

/** Told of each try of an upstream (by its agent id) and each move to a fallback (the metrics). */
export interface RetryListener {
  attempt(agentId: string): void;
  fallback(from: string, to: string): void;
}

/** Failures worth another try, with the upstream's Retry-After when it sent one. */
const retryables = new WeakMap<Error, { retryAfter?: string }>();

export function retryable(err: Error, retryAfter?: string): Error {
  retryables.set(err, { retryAfter });
  return err;
}

export async function sendWithRetries(
  callers: UpstreamCaller[],
  request: ChatRequest,
  ctx: AgentContext,
  stream: boolean,
  budgetMs: number,
  listener: RetryListener,
): Promise<{ res: Dispatcher.ResponseData; caller: UpstreamCaller }> {
  const deadline = Date.now() + budgetMs;
  let last: unknown;
  for (const caller of callers) {
    if (caller !== callers[0]) {
      if (Date.now() >= deadline) break;
      listener.fallback(callers[0].agentId, caller.agentId);
    }
    for (let attempt = 1; attempt <= caller.retries.attempts; attempt++) {
      const left = deadline - Date.now();
      if (left <= 0) throw last;
      listener.attempt(caller.agentId);
      try {
        return { res: await caller.send(request, ctx, stream, left), caller };
      } catch (err) {
        const retry = retryables.get(err as Error);
        if (!retry || ctx.upstreamSignal.aborted) throw err;
        last = err;
        if (attempt === caller.retries.attempts) break;
        const wait = delayBeforeRetry(attempt, caller.retries, retry.retryAfter);
        // A wait past the deadline, or a Retry-After past the agent's longest wait: on to the next upstream.
        if (wait === undefined || Date.now() + wait >= deadline) break;
        ctx.log.warn({ agent: caller.agentId, attempt, waitMs: Math.round(wait) }, "upstream call retried");
        await sleep(wait, undefined, { signal: ctx.signal });
      }
    }
  }
  throw last;
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
