/**
 * Requests per minute per API key (RATE_LIMIT_RPM, or the key's own `rate_limits.rpm`), counted
 * by @fastify/rate-limit: in Redis when REDIS_URL is set, so every replica shares one count (its
 * Lua script increments and sets the window in one round trip), else in this process. A fixed
 * window of one minute per key, which is what Redis can count in one atomic step.
 *
 * Answers under a limit carry OpenAI's headers (`x-ratelimit-limit-requests`,
 * `-remaining-requests`, `-reset-requests`); over it, 429 `rate_limit_exceeded` with Retry-After.
 * Keys with no limit skip all of it: no round trip, no header. When Redis does not answer, the
 * request is let through (fail open, a warning logged): an outage of the counter must not become
 * an outage of the API.
 */
import rateLimit from "@fastify/rate-limit";
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import fp from "fastify-plugin";
import { keyRateLimited } from "../errors.js";

const WINDOW_MS = 60_000;

declare module "fastify" {
  interface FastifyInstance {
    /**
     * Hook for contexts with an API key (after the key check): counts the request against its key's
     * limit. Callback style: a key with no limit passes without a promise.
     */
    limitKeyRequests: KeyLimitHook;
  }
}

/** A duration as OpenAI writes it in `x-ratelimit-reset-*`: `1s`, `6m0s`, `250ms`. */
export function resetDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  const s = Math.ceil(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${s % 60}s`;
}

/** A hook call the per-key limits make: a key with no limit passes at once, without a promise. */
export type KeyLimitHook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

/** The onRequest hook for one per-key limit: `check` runs only for keys that have one. */
export function keyLimitHook(limitOf: (request: FastifyRequest) => number | undefined, check: (request: FastifyRequest, reply: FastifyReply, limit: number) => Promise<void>): KeyLimitHook {
  return (request, reply, done) => {
    const limit = limitOf(request);
    if (limit === undefined) return done();
    check(request, reply, limit).then(() => done(), done);
  };
}

export default fp(
  async (app) => {
    await app.register(rateLimit, { global: false, redis: app.redis, nameSpace: "agentport-rpm-", skipOnError: true });
    const limitOf = (request: FastifyRequest) => request.auth.rpm ?? app.config.rateLimitRpm;
    const count = app.createRateLimit({ keyGenerator: (request) => request.auth.keyId, max: (request) => limitOf(request)!, timeWindow: WINDOW_MS });

    const limitRequests = async (request: FastifyRequest, reply: FastifyReply, limit: number) => {
      const result = await count(request);
      if (result.isAllowed) return;
      const reset = resetDuration(result.ttl);
      void reply.headers({ "x-ratelimit-limit-requests": String(limit), "x-ratelimit-remaining-requests": String(result.remaining), "x-ratelimit-reset-requests": reset });
      if (!result.isExceeded) return;
      app.metrics.rateLimited("requests");
      throw keyRateLimited(limit, reset, result.ttlInSeconds);
    };
    app.decorate("limitKeyRequests", keyLimitHook(limitOf, limitRequests));
  },
  { name: "rate-limit", dependencies: ["api-keys", "redis", "metrics"] },
);
