/**
 * The limiter's policy while the shared counter is away: answered from a per-replica window with the
 * same limits, one probe a second, the outage logged once when it starts and once when it ends.
 * The shared store here is a stand-in the test makes fail; the real one is tested against Redis
 * in redis-windows.test.ts.
 */
import { describe, expect, it } from "vitest";
import { KeyLimiter, type LimiterLog } from "../../../../../../service/src/domain/limits/key-limiter.js";
import {
  MemoryWindows,
  WINDOW_MS,
  type BudgetWindow,
  type Decision,
  type KeyLimits,
  type LimitWindows,
  type SpendAsk,
} from "../../../../../../service/src/domain/limits/windows.js";

function clock(start = 1_700_000_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

/** A shared store that counts in memory (on the test's clock) and fails while `down` is set. */
class FlakyShared implements LimitWindows {
  down: Error | undefined;
  reserves = 0;
  settles: Array<{ key: string; window: string; delta: number }> = [];
  spendSettles: Array<{ budget: string; start: number; cost: number }> = [];
  closed = 0;
  private readonly inner: MemoryWindows;
  constructor(now: () => number) {
    this.inner = new MemoryWindows(now);
  }
  async reserve(key: string, limits: KeyLimits, tokens: number): Promise<Decision> {
    this.reserves++;
    if (this.down) throw this.down;
    return this.inner.reserve(key, limits, tokens);
  }
  async settle(key: string, window: string, delta: number): Promise<void> {
    if (this.down) throw this.down;
    this.settles.push({ key, window, delta });
    return this.inner.settle(key, window, delta);
  }
  async reserveSpend(key: string, limits: KeyLimits, tokens: number, ask: SpendAsk): Promise<Decision> {
    this.reserves++;
    if (this.down) throw this.down;
    return this.inner.reserveSpend(key, limits, tokens, ask);
  }
  async settleSpend(budget: string, start: number, cost: number): Promise<void> {
    if (this.down) throw this.down;
    this.spendSettles.push({ budget, start, cost });
    return this.inner.settleSpend(budget, start, cost);
  }
  async close(): Promise<void> {
    this.closed++;
  }
}

function recordingLog() {
  const lines: Array<{ level: "warn" | "info"; msg: string; obj?: object }> = [];
  const log: LimiterLog = {
    warn: (obj, msg) => void lines.push({ level: "warn", msg, obj }),
    info: (msg) => void lines.push({ level: "info", msg }),
  };
  return { log, lines };
}

const ONE: KeyLimits = { rpm: 1, tpm: 0 };
const refused = (code: string) => Object.assign(new Error("connect refused"), { code });

function setup() {
  const c = clock();
  const shared = new FlakyShared(c.now);
  const { log, lines } = recordingLog();
  const changes: boolean[] = [];
  const limiter = new KeyLimiter(shared, log, (d) => void changes.push(d), undefined, c.now);
  return { c, shared, lines, changes, limiter };
}

describe("KeyLimiter without a shared store", () => {
  it("without a clock of its own counts on the wall clock", async () => {
    const r = await new KeyLimiter(undefined, recordingLog().log).reserve("k", ONE, 0);
    expect(r.resetMs).toBeGreaterThanOrEqual(WINDOW_MS);
    expect(r.resetMs).toBeLessThan(2 * WINDOW_MS);
  });

  it("counts in this process's memory, on its clock", async () => {
    const c = clock();
    const limiter = new KeyLimiter(undefined, recordingLog().log, undefined, undefined, c.now);
    expect(limiter.mode).toBe("memory");
    expect(limiter.degraded).toBe(false);
    expect((await limiter.reserve("k", ONE, 0)).allowed).toBe(true);
    expect((await limiter.reserve("k", ONE, 0)).allowed).toBe(false);
    c.advance(WINDOW_MS);
    expect((await limiter.reserve("k", ONE, 0)).allowed).toBe(true);
  });

  it("closes without a shared store", async () => {
    await expect(new KeyLimiter(undefined, recordingLog().log).close()).resolves.toBeUndefined();
  });
});

describe("KeyLimiter with a shared store", () => {
  it("reserves in the shared store while it answers, and settles there", async () => {
    const { shared, limiter, lines } = setup();
    expect(limiter.mode).toBe("redis");
    const r = await limiter.reserve("k", { rpm: 0, tpm: 100 }, 30);
    expect(r).toMatchObject({ allowed: true, requests: 1, tokens: 30 });
    expect(r.store).toBe(shared);
    limiter.settle(r, "k", -20);
    await Promise.resolve();
    expect(shared.settles).toEqual([{ key: "k", window: r.window, delta: -20 }]);
    expect(lines).toEqual([]);
  });

  it("sends no settlement of 0 tokens", async () => {
    const { shared, limiter } = setup();
    const r = await limiter.reserve("k", { rpm: 0, tpm: 100 }, 30);
    limiter.settle(r, "k", 0);
    await Promise.resolve();
    expect(shared.settles).toEqual([]);
  });

  it("when the store fails: answered from a local window with the same limits, logged once, reported degraded", async () => {
    const { shared, limiter, lines, changes } = setup();
    shared.down = refused("ECONNREFUSED");
    const first = await limiter.reserve("k", ONE, 0);
    expect(first.allowed).toBe(true);
    expect(first.store).not.toBe(shared);
    expect(limiter.degraded).toBe(true);
    expect(limiter.mode).toBe("degraded");
    expect(changes).toEqual([true]);
    // Fail to a local limit, never to no limit.
    expect((await limiter.reserve("k", ONE, 0)).allowed).toBe(false);
    expect(lines).toEqual([
      {
        level: "warn",
        obj: { code: "ECONNREFUSED", reason: "connect refused" },
        msg: "Redis (rate limits) is not answering; limits are counted per replica until it does",
      },
    ]);
  });

  it("while degraded, probes the store at most once a second, the other requests go straight to memory", async () => {
    const { c, shared, limiter, lines, changes } = setup();
    shared.down = refused("ETIMEDOUT");
    await limiter.reserve("k", ONE, 0);
    expect(shared.reserves).toBe(1);
    c.advance(999);
    await limiter.reserve("k", ONE, 0);
    expect(shared.reserves).toBe(1);
    c.advance(1);
    await limiter.reserve("k", ONE, 0); // the probe: fails again, no second log line
    expect(shared.reserves).toBe(2);
    c.advance(500);
    await limiter.reserve("k", ONE, 0); // the next probe is a second after the failed one
    expect(shared.reserves).toBe(2);
    expect(lines.filter((l) => l.level === "warn")).toHaveLength(1);
    expect(changes).toEqual([true]);
  });

  it("when the store answers a probe again: shared again, logged once", async () => {
    const { c, shared, limiter, lines, changes } = setup();
    shared.down = refused("ECONNREFUSED");
    await limiter.reserve("k", ONE, 0);
    shared.down = undefined;
    c.advance(1_000);
    const r = await limiter.reserve("k", ONE, 0);
    expect(r.store).toBe(shared);
    expect(limiter.degraded).toBe(false);
    expect(limiter.mode).toBe("redis");
    expect(changes).toEqual([true, false]);
    expect(lines.map((l) => l.level)).toEqual(["warn", "info"]);
    expect(lines[1].msg).toBe("Redis (rate limits) answers again; limits are shared by the replicas again");
    await limiter.reserve("k", ONE, 0);
    expect(lines).toHaveLength(2);
  });

  it("a failed settlement is dropped and marks the store away", async () => {
    const { shared, limiter, changes } = setup();
    const r = await limiter.reserve("k", { rpm: 0, tpm: 100 }, 30);
    shared.down = refused("ECONNRESET");
    limiter.settle(r, "k", -10);
    await new Promise((resolve) => setImmediate(resolve));
    expect(limiter.degraded).toBe(true);
    expect(changes).toEqual([true]);
  });

  it("a settlement goes where its reservation was counted: the local window while degraded", async () => {
    const { shared, limiter } = setup();
    shared.down = refused("ECONNREFUSED");
    const r = await limiter.reserve("k", { rpm: 0, tpm: 100 }, 90);
    limiter.settle(r, "k", -90);
    await Promise.resolve();
    expect((await limiter.reserve("k", { rpm: 0, tpm: 100 }, 5)).tokens).toBe(5);
  });

  it("close is a no-op for a shared store that has nothing to close", async () => {
    const { c } = setup();
    const plain: LimitWindows = new MemoryWindows(c.now);
    await expect(
      new KeyLimiter(plain, recordingLog().log, undefined, undefined, c.now).close(),
    ).resolves.toBeUndefined();
  });

  it("close closes the shared store (its last settlements are written)", async () => {
    const { shared, limiter } = setup();
    await limiter.close();
    expect(shared.closed).toBe(1);
  });
});

describe("KeyLimiter.reserveSpend: a run's cost against its budgets", () => {
  const OPEN: KeyLimits = { rpm: 0, tpm: 0 };
  /** A budget of 100 micro-dollars, its window starting at 0, not yet seeded. */
  const ask = (cost: number): SpendAsk => ({ cost, budgets: [{ id: "key:k", limit: 100, start: 0, end: null }] });

  /** A limiter over the flaky store whose seeder answers `seed` and records the budgets it was asked for. */
  function seeded(seed = 40) {
    const s = setup();
    const asked: BudgetWindow[] = [];
    const seeder = (b: BudgetWindow) => (asked.push(b), Promise.resolve(seed));
    const { log, lines } = recordingLog();
    const limiter = new KeyLimiter(s.shared, log, (d) => void s.changes.push(d), seeder, s.c.now);
    return { ...s, limiter, lines, asked };
  }

  it("a budget window the store does not hold is seeded with the recorded spend, and asked again once", async () => {
    const { shared, limiter, asked } = seeded(40);
    const a = ask(30);
    const r = await limiter.reserveSpend("k", OPEN, 5, a);
    expect(r).toMatchObject({ allowed: true, requests: 1, tokens: 5, store: shared });
    expect(r.spend).toEqual({ unseeded: [], spent: [70], crossed: [0] });
    expect(asked).toEqual([{ id: "key:k", limit: 100, start: 0, end: null }]);
    expect(shared.reserves).toBe(2);
    // The reservation carries its budgets, to settle their cost where it was counted.
    expect(r.ask?.budgets).toEqual([{ id: "key:k", limit: 100, start: 0, end: null, seed: 40 }]);
    // Held now: the next run of the window is one call, no seeding.
    const next = await limiter.reserveSpend("k", OPEN, 5, ask(30));
    expect(next.spend?.spent).toEqual([100]);
    expect([shared.reserves, asked.length]).toEqual([3, 1]);
  });

  it("seeds only the budgets the store asks for", async () => {
    const { limiter, asked } = seeded(10);
    await limiter.reserveSpend("k", OPEN, 0, ask(1));
    const two: SpendAsk = {
      cost: 1,
      budgets: [
        { id: "key:k", limit: 100, start: 0, end: null },
        { id: "project:p", limit: 100, start: 0, end: null },
      ],
    };
    const r = await limiter.reserveSpend("k", OPEN, 0, two);
    expect(asked.map((b) => b.id)).toEqual(["key:k", "project:p"]);
    expect(r.spend?.spent).toEqual([12, 11]);
  });

  it("gives up after three calls when the store keeps losing the window: refused, nothing counted", async () => {
    const { c, lines } = setup();
    let calls = 0;
    const forgetful: LimitWindows = {
      reserve: () => Promise.reject(new Error("not used")),
      settle: async () => {},
      reserveSpend: async () => {
        calls++;
        return {
          allowed: false,
          requests: 0,
          tokens: 0,
          resetMs: 0,
          window: "",
          spend: { unseeded: [0], spent: [], crossed: [] },
        };
      },
      settleSpend: async () => {},
    };
    let seeds = 0;
    const limiter = new KeyLimiter(forgetful, recordingLog().log, undefined, () => Promise.resolve(++seeds), c.now);
    const r = await limiter.reserveSpend("k", OPEN, 0, ask(1));
    expect(r).toMatchObject({ allowed: false, spend: { unseeded: [0] } });
    expect([calls, seeds]).toEqual([3, 2]);
    expect(lines).toEqual([]);
  });

  it("without a seeder, a window the store does not hold starts from 0", async () => {
    const { c, shared } = setup();
    const limiter = new KeyLimiter(shared, recordingLog().log, undefined, undefined, c.now);
    const r = await limiter.reserveSpend("k", OPEN, 0, ask(30));
    expect(r).toMatchObject({ allowed: true, spend: { spent: [30] } });
  });

  it("without a shared store, counts the budgets in this process's memory", async () => {
    const c = clock();
    const { log, lines } = recordingLog();
    const limiter = new KeyLimiter(undefined, log, undefined, () => Promise.resolve(90), c.now);
    const first = await limiter.reserveSpend("k", ONE, 0, ask(20));
    expect(first).toMatchObject({ allowed: true, spend: { spent: [110] } });
    expect(first.store).toBeInstanceOf(MemoryWindows);
    expect((await limiter.reserveSpend("k", { rpm: 5, tpm: 0 }, 0, ask(1))).spend?.refused).toBe(0);
    expect(limiter.degraded).toBe(false);
    expect(lines).toEqual([]);
  });

  it("when the store fails: budgets counted in the local window, probed a second later at the earliest, shared again once it answers", async () => {
    const { c, shared, limiter, lines, changes } = seeded(0);
    shared.down = refused("ECONNREFUSED");
    const local = await limiter.reserveSpend("k", OPEN, 0, ask(30));
    // The failed call, then the local window seeded and asked again, without a second call.
    expect(local).toMatchObject({ allowed: true, spend: { spent: [30] } });
    expect(local.store).not.toBe(shared);
    expect(shared.reserves).toBe(1);
    expect(limiter.degraded).toBe(true);
    expect(changes).toEqual([true]);
    shared.down = undefined;
    c.advance(999);
    expect((await limiter.reserveSpend("k", OPEN, 0, ask(30))).store).toBe(local.store);
    expect(shared.reserves).toBe(1);
    c.advance(1);
    // The probe reaches the store (which does not hold the window yet: seeded, asked again).
    const back = await limiter.reserveSpend("k", OPEN, 0, ask(30));
    expect(back.store).toBe(shared);
    expect(shared.reserves).toBe(3);
    expect(limiter.degraded).toBe(false);
    expect(changes).toEqual([true, false]);
    expect(lines.map((l) => l.level)).toEqual(["warn", "info"]);
  });
});

describe("KeyLimiter.settle of a run's cost", () => {
  const OPEN: KeyLimits = { rpm: 0, tpm: 0 };
  const budgets = [
    { id: "key:k", limit: 100, start: 0, end: null, seed: 0 },
    { id: "project:p", limit: 500, start: 7, end: null, seed: 0 },
  ];

  it("lands in every budget the run was counted against, where it was counted", async () => {
    const { shared, limiter } = setup();
    const r = await limiter.reserveSpend("k", OPEN, 0, { cost: 30, budgets });
    limiter.settle(r, "k", 0, -20);
    await Promise.resolve();
    expect(shared.settles).toEqual([]);
    expect(shared.spendSettles).toEqual([
      { budget: "key:k", start: 0, cost: -20 },
      { budget: "project:p", start: 7, cost: -20 },
    ]);
    const next = await limiter.reserveSpend("k", OPEN, 0, { cost: 0, budgets });
    expect(next.spend?.spent).toEqual([10, 10]);
  });

  it("sends no settlement of 0 cost, and none for a reservation without budgets", async () => {
    const { shared, limiter } = setup();
    const spent = await limiter.reserveSpend("k", OPEN, 0, { cost: 30, budgets });
    limiter.settle(spent, "k", 0, 0);
    const plain = await limiter.reserve("k", { rpm: 0, tpm: 100 }, 30);
    expect(() => limiter.settle(plain, "k", 0, 5)).not.toThrow();
    await Promise.resolve();
    expect(shared.spendSettles).toEqual([]);
  });

  it("a failed cost settlement is dropped and marks the store away", async () => {
    const { shared, limiter } = setup();
    const r = await limiter.reserveSpend("k", OPEN, 0, { cost: 30, budgets });
    shared.down = refused("ECONNRESET");
    limiter.settle(r, "k", 0, -10);
    await new Promise((resolve) => setImmediate(resolve));
    expect(limiter.degraded).toBe(true);
  });
});
