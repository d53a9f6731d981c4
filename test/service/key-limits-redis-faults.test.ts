/**
 * A Redis that stalls (CLIENT PAUSE) or dies under the per-key limits: every limited request answers
 * within a bound, the per-replica fallback still refuses past the limit, readiness and the gauge
 * say the limiter is degraded, and the outage is logged once when it starts and once when it ends;
 * requests a replica's credit covers never wait on it.
 */
import { afterAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { buildTestApp, type TestApp } from "../helpers/app.js";
import type { AppOptions } from "../../service/src/app.js";
import { listen } from "../helpers/openai-client.js";
import { freePort } from "../helpers/pg-cluster.js";
import { startPrivateRedis, type PrivateRedis } from "../helpers/redis-server.js";
import { scrape } from "../helpers/metrics.js";

/** Far above the command timeout (200 ms here): a request held by Redis would exceed it. */
const ANSWER_BOUND_MS = 5_000;
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** A service whose keys are limited to `rpm` in `redis`, with a 200 ms command timeout; its models list and readiness, each answered within the bound. */
async function limitedService(redis: PrivateRedis, rpm: string, logger?: AppOptions["logger"]) {
  const t: TestApp = await buildTestApp(
    "pglite",
    { RATE_LIMIT_RPM: rpm, REDIS_URL: redis.url, REDIS_COMMAND_TIMEOUT_MS: "200" },
    logger ? { logger } : undefined,
  );
  cleanups.push(() => t.close());
  const base = await listen(t.app);
  const origin = base.replace(/\/v1$/, "");
  const { secret } = await t.createKey();
  return {
    origin,
    models: async () =>
      (
        await fetch(`${base}/models`, {
          headers: { authorization: `Bearer ${secret}` },
          signal: AbortSignal.timeout(ANSWER_BOUND_MS),
        })
      ).status,
    ready: async () => (await fetch(`${origin}/health/ready`, { signal: AbortSignal.timeout(ANSWER_BOUND_MS) })).json(),
  };
}

describe("per-key limits while Redis stalls or is away", () => {
  it("answer within a bound, fall back to a per-replica limit, say so, and log the outage once each way", async () => {
    const port = await freePort();
    let redis: PrivateRedis = await startPrivateRedis(port);
    cleanups.push(() => redis.kill());
    const lines: string[] = [];
    const { origin, models, ready } = await limitedService(redis, "3", {
      level: "info",
      stream: { write: (line: string) => void lines.push(line) },
    });
    const logged = (msg: string) => lines.filter((l) => l.includes(msg)).length;

    expect(await models()).toBe(200); // counted in Redis
    expect(await ready()).toMatchObject({ status: "ready", limits: "redis" });

    // Redis accepts but never answers: each limited request still answers, counted in this replica.
    // Sent at once, their reservations leave in one pipelined write that stalls as a whole.
    const admin = new Redis(redis.url, { maxRetriesPerRequest: 0 });
    admin.on("error", () => {});
    await admin.call("CLIENT", "PAUSE", "60000", "ALL");
    const paused = await Promise.all(Array.from({ length: 4 }, () => models()));
    expect(paused.sort()).toEqual([200, 200, 200, 429]);
    expect(await models()).toBe(429);
    expect(await ready()).toMatchObject({ status: "degraded", limits: "degraded" });
    expect((await scrape(origin)).value("agentport_rate_limit_degraded", {})).toBe(1);

    // Redis dies: still answered, still limited.
    admin.disconnect();
    await redis.kill();
    expect(await models()).toBe(429);
    expect(logged("Redis (rate limits) is not answering")).toBe(1);

    // Redis is back: within a bounded wait the limits are shared again.
    redis = await startPrivateRedis(port);
    let back = false;
    for (let i = 0; i < 100 && !back; i++) {
      await models();
      back = (await ready()).limits === "redis";
      if (!back) await new Promise((r) => setTimeout(r, 100));
    }
    expect(back).toBe(true);
    expect((await scrape(origin)).value("agentport_rate_limit_degraded", {})).toBe(0);
    expect(logged("Redis (rate limits) is not answering")).toBe(1);
    expect(logged("Redis (rate limits) answers again")).toBe(1);
  });

  it("requests a replica's credit covers make no call: a stalled Redis neither holds them nor degrades the limits", async () => {
    const port = await freePort();
    const redis = await startPrivateRedis(port);
    cleanups.push(() => redis.kill());
    const { models, ready } = await limitedService(redis, "100000");

    expect(await models()).toBe(200); // one call, granting credit for the next 32
    const admin = new Redis(redis.url, { maxRetriesPerRequest: 0 });
    admin.on("error", () => {});
    cleanups.push(async () => admin.disconnect());
    await admin.call("CLIENT", "PAUSE", "60000", "WRITE");
    for (let i = 0; i < 10; i++) expect(await models()).toBe(200);
    // No call timed out: the limits are still shared, not counted per replica.
    expect(await ready()).toMatchObject({ status: "ready", limits: "redis" });
    await admin.call("CLIENT", "UNPAUSE");
  });
});
