/**
 * Tokens per minute per API key (RATE_LIMIT_TPM, or the key's own `rate_limits.tpm`), counted by
 * rate-limiter-flexible: in Redis when REDIS_URL is set (its Lua script adds and sets the window
 * in one round trip, so every replica shares one count), else in this process. A fixed window of
 * one minute per key, from the key's first tokens in it.
 *
 * A completion's tokens are known only once it ends, so — as OpenAI and LiteLLM do — a request is
 * refused when the key's window is already spent, and each finished completion adds its prompt
 * and completion tokens. Under the limit, chat answers carry `x-ratelimit-limit-tokens`,
 * `-remaining-tokens`, `-reset-tokens`; over it, 429 `rate_limit_exceeded` with Retry-After. When
 * Redis does not answer, requests pass (fail open, as the request limit does).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from "rate-limiter-flexible";
import { keyTokensRateLimited } from "../errors.js";
import { keyLimitHook, resetDuration, type KeyLimitHook } from "./rate-limit.js";

const WINDOW_SECONDS = 60;

declare module "fastify" {
  interface FastifyInstance {
    /**
     * Before a completion: refuses a key whose tokens this minute are spent; sets the token
     * headers. Callback style: a key with no limit passes without a promise.
     */
    checkKeyTokens: KeyLimitHook;
    /** After a completion: adds its tokens to its key's window. */
    spendKeyTokens(request: FastifyRequest, tokens: number): void;
  }
}

export default fp(
  async (app) => {
    // The window's own ceiling is never used: each key's limit is applied to `consumedPoints` here.
    const options = { keyPrefix: "agentport-tpm", points: Number.MAX_SAFE_INTEGER, duration: WINDOW_SECONDS };
    const windows: RateLimiterAbstract = app.redis ? new RateLimiterRedis({ ...options, storeClient: app.redis }) : new RateLimiterMemory(options);
    const limitOf = (request: FastifyRequest) => request.auth.tpm ?? app.config.rateLimitTpm;

    const checkTokens = async (request: FastifyRequest, reply: FastifyReply, limit: number) => {
      let used = 0;
      let resetMs = WINDOW_SECONDS * 1000;
      try {
        const window = await windows.get(request.auth.keyId);
        if (window) [used, resetMs] = [window.consumedPoints, window.msBeforeNext];
      } catch (err) {
        request.log.warn({ code: (err as NodeJS.ErrnoException).code }, "token limit store unavailable; request not limited");
        return;
      }
      const reset = resetDuration(resetMs);
      void reply.headers({ "x-ratelimit-limit-tokens": String(limit), "x-ratelimit-remaining-tokens": String(Math.max(0, limit - used)), "x-ratelimit-reset-tokens": reset });
      if (used < limit) return;
      app.metrics.rateLimited("tokens");
      throw keyTokensRateLimited(limit, used, reset, Math.max(1, Math.ceil(resetMs / 1000)));
    };
    app.decorate("checkKeyTokens", keyLimitHook(limitOf, checkTokens));

    app.decorate("spendKeyTokens", (request: FastifyRequest, tokens: number) => {
      if (tokens <= 0 || limitOf(request) === undefined) return;
      windows.penalty(request.auth.keyId, tokens).catch((err: unknown) => {
        request.log.warn({ code: (err as NodeJS.ErrnoException).code }, "token limit store unavailable; tokens not counted");
      });
    });
  },
  { name: "token-limit", dependencies: ["api-keys", "redis", "metrics"] },
);
