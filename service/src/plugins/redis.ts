/**
 * The Redis the replicas share for rate limits (`app.redis`, REDIS_URL; rediss:// for TLS), or
 * undefined: then each limit is counted per process. The client and its bounds (REDIS_*_TIMEOUT_MS)
 * are in domain/limits/redis-client.ts, loaded only when configured: a replica without REDIS_URL
 * never holds it (~1 MB of heap).
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
    const redis = url
      ? (await import("../domain/limits/redis-client.js")).redisClient(url, app.config.redisTimeouts)
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
