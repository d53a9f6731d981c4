/**
 * The Redis the replicas share for rate limits (`app.redis`, REDIS_URL; rediss:// for TLS), or
 * undefined: then each limit is counted per process. Commands fail at once while Redis is away
 * (no offline queue) so a limit check never holds a request; the client reconnects on its own.
 */
import fp from "fastify-plugin";
import { Redis } from "ioredis";

declare module "fastify" {
  interface FastifyInstance {
    redis: Redis | undefined;
  }
}

export default fp(
  async (app) => {
    const url = app.config.redisUrl;
    const redis = url ? new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000, lazyConnect: true }) : undefined;
    if (redis) {
      // One line when the link goes down, not one per reconnect attempt.
      let down = false;
      redis.on("error", (err) => {
        if (down) return;
        down = true;
        app.log.warn({ code: (err as NodeJS.ErrnoException).code }, "Redis (rate limits) unavailable; requests are not limited meanwhile");
      });
      redis.on("ready", () => {
        if (down) app.log.info("Redis (rate limits) is back");
        down = false;
      });
      await redis.connect().catch(() => {}); // reconnects on its own; limits fail open until then
      app.addHook("onClose", async () => void redis.disconnect());
    }
    app.decorate("redis", redis);
  },
  { name: "redis" },
);
