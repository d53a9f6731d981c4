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
 * `rate_limit_exceeded` with Retry-After. Keys with no limit skip all of it.
 */
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import fp from "fastify-plugin";
import { keyRateLimited, keyTokensRateLimited, type ApiError } from "../errors.js";
import type { ChatMessage } from "../domain/agents/types.js";
import { estimateRun } from "../domain/limits/estimate.js";
import { KeyLimiter, type Reserved } from "../domain/limits/key-limiter.js";
import { MeteredRun, type RunOwner } from "../domain/limits/metered-run.js";
import { LeasedWindows } from "../domain/limits/leased-windows.js";
import { RedisWindows } from "../domain/limits/redis-windows.js";
import { tracedWindows } from "../domain/limits/traced-windows.js";

/** A caller of a run: the key that pays for it and its own limits, if any. */
export interface RunPrincipal extends RunOwner {
  rpm?: number;
  tpm?: number;
}

export interface RunAsk {
  model: string;
  messages: readonly ChatMessage[];
  maxTokens?: number;
  /** The agent's own cap on its answer, if it has one. */
  agentCap?: number;
  /** The prompt's estimate when it is not chat messages (an embeddings input); replaces theirs. */
  promptTokens?: number;
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

export default fp(
  async (app) => {
    const limiter = new KeyLimiter(
      app.redis && new LeasedWindows(tracedWindows(new RedisWindows(app.redis))),
      app.log,
      app.metrics.limiterDegraded,
    );
    const sinks = { limiter, usage: app.usage, chat: app.chatMetrics };
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
      if (rpm === undefined && tpm === undefined)
        return { run: new MeteredRun(sinks, principal, ask.model, estimate, undefined), headers: {} };
      const { reserved, headers } = await reserve(
        principal.keyId,
        rpm,
        tpm,
        tpm === undefined ? 0 : estimate.prompt + estimate.completion,
      );
      return {
        run: new MeteredRun(sinks, principal, ask.model, estimate, tpm === undefined ? undefined : reserved),
        headers,
      };
    }

    /** One request unit against the key's RPM, with its headers. */
    async function countRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      const rpm = effectiveLimit(request.auth.rpm, rateLimitRpm);
      if (rpm === undefined) return;
      const { headers } = await reserve(request.auth.keyId, rpm, undefined, 0);
      void reply.headers(headers);
    }
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
