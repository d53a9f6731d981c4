/**
 * The reservation script on the real Redis (127.0.0.1:6379, keys of this test's own random prefix):
 * it admits exactly what the in-process rule admits, grants credit within its share, takes returned
 * credit back only in its own window, and settles only in the window reserved in; with budgets, it
 * asks for a window it does not hold, admits until spent, raises each alert once, and expires a
 * budget's window with its period.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { redisClient } from "../../../../../../service/src/domain/limits/redis-client.js";
import { CREDIT_SHARE, RedisWindows } from "../../../../../../service/src/domain/limits/redis-windows.js";
import {
  ALERT_100,
  ALERT_80,
  MemoryWindows,
  WINDOW_MS,
  type BudgetWindow,
  type KeyLimits,
  type SpendAsk,
} from "../../../../../../service/src/domain/limits/windows.js";

const REDIS = "redis://127.0.0.1:6379";
const PREFIX = "unit-" + randomBytes(6).toString("hex") + "-";
let redis: Redis;
let admin: Redis;
let windows: RedisWindows;
let serial = 0;
const newKey = () => PREFIX + serial++;
const stored = (key: string) => admin.hgetall("agentport-limits:" + key);
const storedBudget = (id: string) => admin.hgetall("agentport-budget:" + id);

beforeAll(async () => {
  redis = redisClient(REDIS, { connectMs: 2_000, commandMs: 2_000 });
  await redis.connect();
  admin = new Redis(REDIS);
  windows = new RedisWindows(redis);
});

afterAll(async () => {
  await windows.close();
  const keys = [
    ...(await admin.keys("agentport-limits:" + PREFIX + "*")),
    ...(await admin.keys("agentport-budget:*:" + PREFIX + "*")),
  ];
  if (keys.length) await admin.del(...keys);
  redis.disconnect();
  admin.disconnect();
});

describe("the script admits what the in-process rule admits", () => {
  const cases: Array<[KeyLimits, number[]]> = [
    [{ rpm: 3, tpm: 0 }, [0, 0, 0, 0, 0]],
    [{ rpm: 0, tpm: 100 }, [40, 59, 1, 0]],
    [{ rpm: 0, tpm: 100 }, [99, 1, 0]],
    [{ rpm: 0, tpm: 100 }, [100, 0]],
    [{ rpm: 0, tpm: 100 }, [150, 0]],
    [{ rpm: 2, tpm: 100 }, [10, 10, 10]],
    [{ rpm: 5, tpm: 30 }, [10, 10, 10, 10]],
    [{ rpm: 0, tpm: 0 }, [1_000, 1_000, 1_000]],
  ];
  it.each(cases)("limits %j, reservations of %j tokens", async (limits, sequence) => {
    const key = newKey();
    const memory = new MemoryWindows();
    for (const tokens of sequence) {
      const shared = await windows.reserve(key, limits, tokens);
      const local = memory.reserveNow(key, limits, tokens);
      expect({ allowed: shared.allowed, requests: shared.requests, tokens: shared.tokens }).toEqual({
        allowed: local.allowed,
        requests: local.requests,
        tokens: local.tokens,
      });
      expect(shared.credit).toEqual({ requests: 0, tokens: 0 });
    }
  });

  it("answers the window's reset and identity, the same window until it ends", async () => {
    const key = newKey();
    const first = await windows.reserve(key, { rpm: 10, tpm: 0 }, 0);
    expect(first.resetMs).toBe(WINDOW_MS);
    const second = await windows.reserve(key, { rpm: 10, tpm: 0 }, 0);
    expect(second.window).toBe(first.window);
    expect(second.resetMs).toBeGreaterThan(0);
    expect(second.resetMs).toBeLessThanOrEqual(WINDOW_MS);
    expect(await admin.pttl("agentport-limits:" + key)).toBeGreaterThan(0);
  });

  it("a refused request changes nothing stored", async () => {
    const key = newKey();
    await windows.reserve(key, { rpm: 1, tpm: 0 }, 5);
    expect((await windows.reserve(key, { rpm: 1, tpm: 0 }, 5)).allowed).toBe(false);
    expect(await stored(key)).toMatchObject({ r: "1", t: "5" });
  });
});

describe("credit", () => {
  it("is at most the block asked for, and 1/CREDIT_SHARE of what the window has left", async () => {
    expect(CREDIT_SHARE).toBe(8);
    const far = await windows.reserve(newKey(), { rpm: 1_000, tpm: 0 }, 0, 32);
    expect(far).toMatchObject({ allowed: true, requests: 1, credit: { requests: 32, tokens: 0 } });
    // 81 left after this request: 10 of credit.
    const near = await windows.reserve(newKey(), { rpm: 82, tpm: 0 }, 0, 32);
    expect(near.credit).toEqual({ requests: 10, tokens: 0 });
    // 7 left: none.
    expect((await windows.reserve(newKey(), { rpm: 8, tpm: 0 }, 0, 32)).credit).toEqual({ requests: 0, tokens: 0 });
  });

  it("carries the tokens of its requests, within the token share", async () => {
    const wide = await windows.reserve(newKey(), { rpm: 1_000, tpm: 1_000_000 }, 10, 4);
    expect(wide.credit).toEqual({ requests: 4, tokens: 40 });
    // 800 - 10 = 790 tokens left: 98 of credit at most.
    const tight = await windows.reserve(newKey(), { rpm: 1_000, tpm: 800 }, 10, 32);
    expect(tight.credit).toEqual({ requests: 32, tokens: 98 });
  });

  it("is counted as used in the window when granted", async () => {
    const key = newKey();
    await windows.reserve(key, { rpm: 1_000, tpm: 1_000_000 }, 10, 4);
    expect(await stored(key)).toMatchObject({ r: "5", t: "50" });
  });

  it("for a key without a request limit is tokens only (its requests are not counted)", async () => {
    // 990 tokens left: 123 of credit (the block of 32 requests would carry 320).
    expect((await windows.reserve(newKey(), { rpm: 0, tpm: 1_000 }, 10, 32)).credit).toEqual({
      requests: 0,
      tokens: 123,
    });
  });

  it("given back goes back before the check, in its own window only", async () => {
    const key = newKey();
    const limits = { rpm: 100, tpm: 0 };
    const granted = await windows.reserve(key, limits, 0, 8);
    expect(granted.credit.requests).toBe(8);
    expect(await stored(key)).toMatchObject({ r: "9" });
    const back = await windows.reserve(key, limits, 0, 0, { window: granted.window, requests: 8, tokens: 0 });
    expect(back.requests).toBe(2);
    const wrong = await windows.reserve(key, limits, 0, 0, { window: "another", requests: 2, tokens: 0 });
    expect(wrong.requests).toBe(3);
  });

  it("given back to a window at its limit is kept even when the request is refused", async () => {
    const key = newKey();
    const limits = { rpm: 0, tpm: 100 };
    const first = await windows.reserve(key, limits, 100);
    const refused = await windows.reserve(key, limits, 0, 0, { window: first.window, requests: 0, tokens: 0 });
    expect(refused.allowed).toBe(false);
    const back = await windows.reserve(key, limits, 0, 0, { window: first.window, requests: 0, tokens: 60 });
    expect(back).toMatchObject({ allowed: true, tokens: 40 });
  });
});

describe("settlements", () => {
  it("land in the window reserved in, never below 0, and are batched into one call", async () => {
    const key = newKey();
    const r = await windows.reserve(key, { rpm: 0, tpm: 1_000 }, 300);
    await Promise.all([windows.settle(key, r.window, -100), windows.settle(key, r.window, -50)]);
    expect(await stored(key)).toMatchObject({ t: "150" });
    await windows.settle(key, r.window, -1_000, -5);
    expect(await stored(key)).toMatchObject({ r: "0", t: "0" });
  });

  it("for a window that ended change nothing in the next one, which has an id of its own", async () => {
    const key = newKey();
    const old = await windows.reserve(key, { rpm: 0, tpm: 1_000 }, 300);
    await admin.del("agentport-limits:" + key); // the window expired
    const next = await windows.reserve(key, { rpm: 0, tpm: 1_000 }, 100);
    expect(next.window).not.toBe(old.window);
    await windows.settle(key, old.window, -300);
    expect(await stored(key)).toMatchObject({ t: "100" });
  });

  it("for a window id that was never issued change nothing", async () => {
    const key = newKey();
    await windows.reserve(key, { rpm: 0, tpm: 1_000 }, 300);
    await windows.settle(key, "a-window-that-ended", -300);
    expect(await stored(key)).toMatchObject({ t: "300" });
  });

  it("give request units back too, summed within a batch", async () => {
    const key = newKey();
    const r = await windows.reserve(key, { rpm: 100, tpm: 0 }, 0, 8);
    await Promise.all([windows.settle(key, r.window, 0, -5), windows.settle(key, r.window, 0, -3)]);
    expect(await stored(key)).toMatchObject({ r: "1" });
  });

  it("of several keys in one batch each land in their own key's window", async () => {
    const [a, b] = [newKey(), newKey()];
    const ra = await windows.reserve(a, { rpm: 0, tpm: 1_000 }, 100);
    const rb = await windows.reserve(b, { rpm: 0, tpm: 1_000 }, 200);
    await Promise.all([windows.settle(a, ra.window, -10), windows.settle(b, rb.window, -20)]);
    expect([(await stored(a)).t, (await stored(b)).t]).toEqual(["90", "180"]);
  });

  it("pending at close are written before it returns", async () => {
    const own = new RedisWindows(redis);
    const key = newKey();
    const r = await own.reserve(key, { rpm: 0, tpm: 1_000 }, 300);
    void own.settle(key, r.window, -200);
    await own.close();
    expect(await stored(key)).toMatchObject({ t: "100" });
    await own.close();
  });
});

describe("budgets: the script with a run's cost", () => {
  const OPEN: KeyLimits = { rpm: 0, tpm: 0 };
  /** A budget of its own id (a fresh key in Redis), its window from `start`, never ending unless told. */
  const budget = (limit: number, seed?: number, start = 0, end: number | null = null): BudgetWindow => ({
    id: "key:" + newKey(),
    limit,
    start,
    end,
    ...(seed !== undefined && { seed }),
  });
  const spend = (cost: number, ...budgets: BudgetWindow[]): SpendAsk => ({ cost, budgets });

  it("a budget window Redis does not hold is answered unseeded, nothing counted; with its seed, counted", async () => {
    const key = newKey();
    const b = budget(100);
    const unseeded = await windows.reserveSpend(key, OPEN, 7, spend(30, b));
    expect(unseeded).toEqual({
      allowed: false,
      requests: 0,
      tokens: 0,
      resetMs: 0,
      window: "",
      spend: { unseeded: [0], spent: [], crossed: [] },
    });
    expect(await stored(key)).toEqual({});
    expect(await storedBudget(b.id)).toEqual({});
    const seeded = await windows.reserveSpend(key, OPEN, 7, spend(30, { ...b, seed: 40 }));
    expect(seeded).toMatchObject({ allowed: true, requests: 1, tokens: 7, resetMs: WINDOW_MS });
    expect(seeded.spend).toEqual({ unseeded: [], spent: [70], crossed: [0] });
    expect(await storedBudget(b.id)).toEqual({ w: "0", c: "70" });
    // Held now: no seed needed, and a seed given is not taken over the held figure.
    const held = await windows.reserveSpend(key, OPEN, 0, spend(10, { ...b, seed: 0 }));
    expect(held.spend?.spent).toEqual([80]);
  });

  it("seeds only the budgets it does not hold, and answers which by their index", async () => {
    const [held, fresh] = [budget(100, 0), budget(100)];
    await windows.reserveSpend(newKey(), OPEN, 0, spend(5, held));
    const d = await windows.reserveSpend(newKey(), OPEN, 0, spend(5, { ...held, seed: undefined }, fresh));
    expect(d.spend).toEqual({ unseeded: [1], spent: [], crossed: [] });
    expect(await storedBudget(held.id)).toEqual({ w: "0", c: "5" });
  });

  it("admits what the in-process windows admit: until spent, the refusing budget named, each alert once", async () => {
    const memory = new MemoryWindows();
    const key = newKey();
    const [a, b] = [budget(100, 0), budget(60, 20)];
    const costs = [30, 30, 15, 10, 0, 25, 5];
    const answers = [];
    for (const cost of costs) {
      const shared = await windows.reserveSpend(key, OPEN, 0, spend(cost, a, b));
      const local = memory.reserveSpendNow(key, OPEN, 0, spend(cost, a, b));
      expect({ allowed: shared.allowed, spend: shared.spend }).toEqual({ allowed: local.allowed, spend: local.spend });
      answers.push(shared.spend);
    }
    expect(answers).toEqual([
      { unseeded: [], spent: [30, 50], crossed: [0, ALERT_80] },
      { unseeded: [], spent: [60, 80], crossed: [0, ALERT_100] },
      // b is spent: refused, nothing counted, no alert raised twice.
      { refused: 1, unseeded: [], spent: [60, 80], crossed: [0, 0] },
      { refused: 1, unseeded: [], spent: [60, 80], crossed: [0, 0] },
      { refused: 1, unseeded: [], spent: [60, 80], crossed: [0, 0] },
      { refused: 1, unseeded: [], spent: [60, 80], crossed: [0, 0] },
      { refused: 1, unseeded: [], spent: [60, 80], crossed: [0, 0] },
    ]);
    expect(await stored(key)).toMatchObject({ r: "2" });
  });

  it("the first budget refusing is named 0; an alert is raised on the refusal that first sees it", async () => {
    const a = budget(100, 100);
    const d = await windows.reserveSpend(newKey(), OPEN, 0, spend(1, a));
    expect(d).toMatchObject({ allowed: false, spend: { refused: 0, spent: [100], crossed: [ALERT_80 | ALERT_100] } });
    expect(await storedBudget(a.id)).toEqual({ w: "0", c: "100", a80: "1", a100: "1" });
  });

  it("a rate limit refuses before any budget is counted or alerted", async () => {
    const key = newKey();
    const a = budget(10, 9);
    expect((await windows.reserveSpend(key, { rpm: 1, tpm: 0 }, 0, spend(0, a))).allowed).toBe(true);
    const d = await windows.reserveSpend(key, { rpm: 1, tpm: 0 }, 0, spend(5, a));
    expect(d).toMatchObject({ allowed: false, requests: 1, tokens: 0, window: expect.any(String) });
    expect(d.spend).toEqual({ unseeded: [], spent: [9], crossed: [] });
    expect(await storedBudget(a.id)).toEqual({ w: "0", c: "9", a80: "1" });
  });

  it("a new period replaces the budget's window: counted from its seed, alerts afresh", async () => {
    const old = budget(100, 90, 0);
    await windows.reserveSpend(newKey(), OPEN, 0, spend(5, old));
    expect(await storedBudget(old.id)).toMatchObject({ a80: "1", c: "95" });
    const next = { ...old, start: 1_000, seed: 0 };
    const d = await windows.reserveSpend(newKey(), OPEN, 0, spend(80, next));
    expect(d.spend).toEqual({ unseeded: [], spent: [80], crossed: [ALERT_80] });
    expect(await storedBudget(old.id)).toEqual({ w: "1000", c: "80", a80: "1" });
  });

  it("a budget's window expires with its period; one without an end never does", async () => {
    const inAMinute = Date.now() + 60_000;
    const [ending, ended, endless] = [budget(100, 0, 0, inAMinute), budget(100, 0, 0, Date.now() - 5), budget(100, 0)];
    await windows.reserveSpend(newKey(), OPEN, 0, spend(1, ending, endless));
    const ttl = await admin.pttl("agentport-budget:" + ending.id);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect(await admin.pttl("agentport-budget:" + endless.id)).toBe(-1);
    // A period already over (a clock a little behind): its window lives a millisecond, not forever
    // (-2: gone already; -1 would be no expiry).
    await windows.reserveSpend(newKey(), OPEN, 0, spend(1, ended));
    expect([-2, 0, 1]).toContain(await admin.pttl("agentport-budget:" + ended.id));
  });

  it("each reservation's window has an id of its own, the key's window is counted as without budgets", async () => {
    const key = newKey();
    const first = await windows.reserveSpend(key, { rpm: 10, tpm: 1_000 }, 40, spend(1, budget(100, 0)));
    expect(first).toMatchObject({ allowed: true, requests: 1, tokens: 40, resetMs: WINDOW_MS });
    expect(await stored(key)).toEqual({ r: "1", t: "40", w: first.window });
    expect(await admin.pttl("agentport-limits:" + key)).toBeGreaterThan(0);
    await admin.del("agentport-limits:" + key); // the window expired
    const next = await windows.reserveSpend(key, { rpm: 10, tpm: 1_000 }, 40, spend(1, budget(100, 0)));
    expect(next.window).not.toBe(first.window);
  });
});

describe("budget settlements", () => {
  const OPEN: KeyLimits = { rpm: 0, tpm: 0 };
  const held = async (seed: number) => {
    const b: BudgetWindow = { id: "key:" + newKey(), limit: 1_000, start: 5, end: null, seed };
    await windows.reserveSpend(newKey(), OPEN, 0, { cost: 0, budgets: [b] });
    return b;
  };

  it("land in the budget's window, summed within a batch, never below 0", async () => {
    const b = await held(300);
    await Promise.all([windows.settleSpend(b.id, 5, -100), windows.settleSpend(b.id, 5, 30)]);
    expect(await storedBudget(b.id)).toMatchObject({ c: "230" });
    await windows.settleSpend(b.id, 5, -1_000);
    expect(await storedBudget(b.id)).toMatchObject({ c: "0" });
  });

  it("for a window that has moved on change nothing", async () => {
    const b = await held(300);
    await windows.settleSpend(b.id, 4, -100);
    expect(await storedBudget(b.id)).toMatchObject({ c: "300" });
  });

  it("and a key's token settlement in the same batch each land in their own window", async () => {
    const b = await held(300);
    const key = newKey();
    const r = await windows.reserve(key, { rpm: 0, tpm: 1_000 }, 100);
    await Promise.all([windows.settleSpend(b.id, 5, -50), windows.settle(key, r.window, -10)]);
    expect([(await storedBudget(b.id)).c, (await stored(key)).t]).toEqual(["250", "90"]);
  });
});
