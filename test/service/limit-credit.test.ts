/**
 * Credit leasing (domain/limits/leased-windows.ts) on the real Redis the replicas share: far from a
 * limit a replica spends granted credit without a round trip; near it every request is counted in
 * Redis; replicas together admit exactly the limit, never more; unused credit goes back in the next
 * call, after it sits idle, and at shutdown.
 */
import { afterAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { Redis } from "ioredis";
import { redisClient } from "../../service/src/domain/limits/redis-client.js";
import { RedisWindows } from "../../service/src/domain/limits/redis-windows.js";
import { BLOCK, LeasedWindows } from "../../service/src/domain/limits/leased-windows.js";
import type { Credit, CreditWindows, Grant, KeyLimits } from "../../service/src/domain/limits/windows.js";
import { buildTestApp } from "../helpers/app.js";

const REDIS = "redis://127.0.0.1:6379";
const clients: Redis[] = [];
const admin = new Redis(REDIS);
afterAll(async () => {
  for (const c of clients) c.disconnect();
  admin.disconnect();
});

/** One replica's windows, counting the calls that reach Redis; `fail` makes the next calls throw. */
async function replica(idleMs?: number) {
  const redis = redisClient(REDIS, { connectMs: 1000, commandMs: 1000 });
  clients.push(redis);
  await redis.connect();
  const inner = new RedisWindows(redis);
  /** `hold`: answers from Redis wait for it (a call still on its way). */
  const counted: { calls: number; fail: boolean; hold?: Promise<void> } = { calls: 0, fail: false };
  const source: CreditWindows = {
    reserve(key: string, limits: KeyLimits, tokens: number, block?: number, returned?: Credit) {
      counted.calls++;
      if (counted.fail) return Promise.reject(new Error("Redis is away"));
      const hold = counted.hold;
      return inner.reserve(key, limits, tokens, block, returned).then(async (grant) => (await hold, grant));
    },
    settle: (key, window, delta, requests) => inner.settle(key, window, delta, requests),
    reserveSpend: (key, limits, tokens, spend) => inner.reserveSpend(key, limits, tokens, spend),
    settleSpend: (budget, start, cost) => inner.settleSpend(budget, start, cost),
    close: () => inner.close(),
  };
  return { windows: new LeasedWindows(source, idleMs), counted };
}

/** The reservation script of the release before credit, as it ran (a rolling deploy runs both at once). */
const PREVIOUS_RESERVE = readFileSync(new URL("../fixtures/reserve-before-credit.lua", import.meta.url), "utf8");

const newKey = () => "credit-" + randomBytes(6).toString("hex");
/** What Redis has counted in the key's window. */
const counted = async (key: string) => Number(await admin.hget("agentport-limits:" + key, "r"));

/** Reserves `rounds` times on each of `replicas` in turn; answers how many were admitted. */
async function admitted(
  replicas: LeasedWindows | LeasedWindows[],
  key: string,
  limits: KeyLimits,
  rounds: number,
  tokens = 0,
): Promise<number> {
  let n = 0;
  for (let i = 0; i < rounds; i++)
    for (const windows of [replicas].flat()) if ((await windows.reserve(key, limits, tokens)).allowed) n++;
  return n;
}

describe("credit leasing over the shared windows", () => {
  it("far from its limit, a replica spends credit: a handful of Redis calls, and Redis counts every request once it is given back", async () => {
    const { windows, counted: calls } = await replica();
    const key = newKey();
    const decisions = [];
    for (let i = 0; i < 100; i++) decisions.push(await windows.reserve(key, { rpm: 1_000_000, tpm: 0 }, 0));
    expect(decisions.every((d) => d.allowed)).toBe(true);
    // The headers' count goes up by one a request, credit or not.
    expect(decisions.map((d) => d.requests)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(calls.calls).toBe(Math.ceil(100 / (BLOCK + 1)));
    // Redis holds the used requests plus the credit not yet spent; shutdown gives the credit back.
    expect(await counted(key)).toBeGreaterThan(100);
    await windows.close();
    expect(await counted(key)).toBe(100);
  });

  it("near the limit there is no credit: every request is counted in Redis, then refused", async () => {
    const { windows, counted: calls } = await replica();
    const key = newKey();
    expect(await admitted(windows, key, { rpm: 8, tpm: 0 }, 10)).toBe(8);
    expect(calls.calls).toBe(10);
    expect(await counted(key)).toBe(8);
    await windows.close();
  });

  it("a burst that arrives together makes one call and spends its grant; near the limit it is still counted exactly", async () => {
    const { windows, counted: calls } = await replica();
    const key = newKey();
    const burst = await Promise.all(
      Array.from({ length: 20 }, () => windows.reserve(key, { rpm: 1_000_000, tpm: 0 }, 0)),
    );
    expect(burst.every((d) => d.allowed)).toBe(true);
    expect(new Set(burst.map((d) => d.requests)).size).toBe(20);
    expect(calls.calls).toBe(1);
    const tight = newKey();
    const near = await Promise.all(Array.from({ length: 12 }, () => windows.reserve(tight, { rpm: 8, tpm: 0 }, 0)));
    expect(near.filter((d) => d.allowed)).toHaveLength(8);
    expect(await counted(tight)).toBe(8);
    await windows.close();
  });

  it("two replicas asking in turn admit exactly the limit between them, never more", async () => {
    const a = await replica();
    const b = await replica();
    const key = newKey();
    const limits = { rpm: 200, tpm: 0 };
    expect(await admitted([a.windows, b.windows], key, limits, 150)).toBe(200);
    // Fewer calls than requests: the credit saved round trips on the way.
    expect(a.counted.calls + b.counted.calls).toBeLessThan(200);
    await a.windows.close();
    await b.windows.close();
    expect(await counted(key)).toBe(200);
  });

  it("a rolling deploy: a replica of the previous release (its own script, no credit) and one with credit share the limit exactly", async () => {
    const old = redisClient(REDIS, { connectMs: 1000, commandMs: 1000 });
    clients.push(old);
    await old.connect();
    // The previous release's reservation script, as it ran before credit: one call per request.
    old.defineCommand("previousReserve", { numberOfKeys: 1, lua: PREVIOUS_RESERVE });
    const previous = old as Redis & { previousReserve(...args: Array<string | number>): Promise<[number]> };
    const current = await replica();
    const key = newKey();
    const limits = { rpm: 200, tpm: 0 };
    let served = 0;
    for (let i = 0; i < 150; i++) {
      const [allowed] = await previous.previousReserve("agentport-limits:" + key, limits.rpm, 0, 0, 60_000, "old-" + i);
      served += allowed;
      served += await admitted(current.windows, key, limits, 1);
    }
    expect(served).toBe(200);
    await current.windows.close();
    expect(await counted(key)).toBe(200);
  });

  it("tokens: credit is spent only while it covers a request's whole estimate, and the limit holds across replicas", async () => {
    const a = await replica();
    const b = await replica();
    const key = newKey();
    const limits = { rpm: 0, tpm: 10_000 };
    const tokens = 100 * (await admitted([a.windows, b.windows], key, limits, 100, 100));
    // Admitted while the window's tokens were under the limit: at most one estimate over it.
    expect(tokens).toBeGreaterThanOrEqual(10_000);
    expect(tokens).toBeLessThanOrEqual(10_100);
    await a.windows.close();
    await b.windows.close();
    expect(Number(await admin.hget("agentport-limits:" + key, "t"))).toBe(tokens);
  });

  it("a key's plain requests (no tokens) spend the credit its runs were granted: an MCP session does not call Redis each time", async () => {
    const { windows, counted: calls } = await replica();
    const key = newKey();
    for (let i = 0; i < 10; i++) {
      expect((await windows.reserve(key, { rpm: 100_000, tpm: 1_000_000 }, 100)).allowed).toBe(true);
      expect((await windows.reserve(key, { rpm: 100_000, tpm: 0 }, 0)).allowed).toBe(true);
    }
    expect(calls.calls).toBe(1);
    await windows.close();
    expect(await counted(key)).toBe(20);
  });

  it("a replica going to Redis gives its unused credit back in the same call, before the check", async () => {
    const a = await replica();
    const key = newKey();
    const first = await a.windows.reserve(key, { rpm: 80, tpm: 0 }, 0);
    expect(first.requests).toBe(1);
    // 1/8 of the 79 left: 9 requests of credit, counted in Redis as used.
    expect(await counted(key)).toBe(10);
    // The key's limit changed: the credit is not spent under it but given back as it reserves.
    const second = await a.windows.reserve(key, { rpm: 40, tpm: 0 }, 0);
    expect(second.requests).toBe(2);
    expect(a.counted.calls).toBe(2);
    await a.windows.close();
    expect(await counted(key)).toBe(2);
  });

  it("credit left idle goes back to the window, where another replica can use it", async () => {
    const a = await replica(1_000);
    const b = await replica();
    const key = newKey();
    const limits = { rpm: 80, tpm: 0 };
    expect((await a.windows.reserve(key, limits, 0)).allowed).toBe(true); // holds 9 of credit
    expect(await admitted(b.windows, key, limits, 75)).toBe(70);
    // Bounded wait for A's sweep to give its 9 back.
    for (let i = 0; i < 80 && (await counted(key)) > 71; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await counted(key)).toBe(71);
    expect(await admitted(b.windows, key, limits, 12)).toBe(9);
    await a.windows.close();
    await b.windows.close();
  });

  it("a failed Redis call forgets every lease: nothing more is answered from credit until Redis answers", async () => {
    const a = await replica();
    const key = newKey();
    const other = newKey();
    const limits = { rpm: 1_000_000, tpm: 0 };
    await a.windows.reserve(key, limits, 0);
    await a.windows.reserve(key, limits, 0);
    expect(a.counted.calls).toBe(1);
    a.counted.fail = true;
    await expect(a.windows.reserve(other, limits, 0)).rejects.toThrow("Redis is away");
    await expect(a.windows.reserve(key, limits, 0)).rejects.toThrow("Redis is away");
    expect(a.counted.calls).toBe(3);
    a.counted.fail = false;
    await a.windows.close();
  });

  it("a failed call gives every other key's credit back: one timeout does not strand it for the window", async () => {
    const a = await replica();
    const key = newKey();
    const limits = { rpm: 1_000, tpm: 0 };
    await a.windows.reserve(key, limits, 0); // 1 used, 32 of credit counted
    expect(await counted(key)).toBe(33);
    a.counted.fail = true;
    await expect(a.windows.reserve(newKey(), limits, 0)).rejects.toThrow("Redis is away");
    a.counted.fail = false;
    await a.windows.close();
    expect(await counted(key)).toBe(1);
  });

  it("a grant that arrives after another call failed is not kept: the next request goes to Redis, and its credit goes back", async () => {
    const a = await replica();
    const key = newKey();
    const limits = { rpm: 1_000, tpm: 0 };
    let release!: () => void;
    a.counted.hold = new Promise((resolve) => (release = resolve));
    const late = a.windows.reserve(key, limits, 0); // answered by Redis, held on its way back
    a.counted.hold = undefined;
    a.counted.fail = true;
    await expect(a.windows.reserve(newKey(), limits, 0)).rejects.toThrow("Redis is away");
    a.counted.fail = false;
    release();
    expect((await late).allowed).toBe(true);
    await a.windows.reserve(key, limits, 0);
    expect(a.counted.calls).toBe(3);
    await a.windows.close();
    // Both requests counted; the late grant's credit given back, the next call's at shutdown.
    expect(await counted(key)).toBe(2);
  });

  it("a grant that fails fails the requests waiting on it: one call to a stalled Redis, not one each", async () => {
    let calls = 0;
    const stalled: CreditWindows = {
      reserve: () => {
        calls++;
        return new Promise<Grant>((_, reject) => setTimeout(() => reject(new Error("Command timed out")), 50));
      },
      settle: async () => {},
      reserveSpend: () => Promise.reject(new Error("not used")),
      settleSpend: async () => {},
    };
    const windows = new LeasedWindows(stalled);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () => windows.reserve("k", { rpm: 1_000, tpm: 0 }, 0)),
    );
    expect(outcomes.every((o) => o.status === "rejected")).toBe(true);
    expect(calls).toBe(1);
    await windows.close();
  });

  it("headers count each request once: credit this replica has not spent is not counted as used", async () => {
    const { windows } = await replica();
    const key = newKey();
    const limits = { rpm: 100_000, tpm: 0 };
    const burst = await Promise.all(Array.from({ length: 40 }, () => windows.reserve(key, limits, 0)));
    expect(burst.map((d) => d.requests).sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect((await windows.reserve(key, limits, 0)).requests).toBe(41);
    await windows.close();
  });

  it("a service shutting down gives its credit back before its Redis connection closes", async () => {
    const t = await buildTestApp("pglite", { RATE_LIMIT_RPM: "100000", REDIS_URL: REDIS });
    const { secret, id } = await t.createKey();
    expect(
      (await t.app.inject({ method: "GET", url: "/v1/models", headers: { authorization: `Bearer ${secret}` } }))
        .statusCode,
    ).toBe(200);
    expect(await counted(id)).toBeGreaterThan(1);
    await t.close();
    expect(await counted(id)).toBe(1);
  });
});
