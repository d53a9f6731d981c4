/**
 * Credit leasing on a clock the test moves: credit spent without a call while it covers a request,
 * never past its window's end or under other limits; unused credit given back in the next call,
 * when idle, after a failure and at shutdown; one call per key asking for credit at a time. The
 * shared windows here count as the Redis script does (redis-windows.ts, tested on the real Redis
 * in redis-windows.test.ts); test/service/limit-credit.test.ts runs the two together.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { BLOCK, IDLE_MS, LeasedWindows } from "../../../../../../service/src/domain/limits/leased-windows.js";
import { CREDIT_SHARE } from "../../../../../../service/src/domain/limits/redis-windows.js";
import {
  admits,
  WINDOW_MS,
  type Credit,
  type CreditWindows,
  type Decision,
  type Grant,
  type KeyLimits,
  type SpendAsk,
} from "../../../../../../service/src/domain/limits/windows.js";

/** A monotonic clock in ms that only moves when told. */
function clock() {
  let t = 1_000;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

interface SharedWindow {
  id: string;
  requests: number;
  tokens: number;
  endsAt: number;
}

/**
 * The shared windows as the Redis script keeps them, on the test's clock: credit is counted as used
 * when granted, at most 1/CREDIT_SHARE of what is left; credit given back lands in its own window
 * only. Records every call; `fail` makes reservations throw, `settleFail` settlements; while
 * `holding`, a call waits on its way, counted only once the test lets it arrive (`release`).
 */
class Shared implements CreditWindows {
  readonly calls: Array<{ key: string; limits: KeyLimits; tokens: number; block: number; returned?: Credit }> = [];
  readonly passed: unknown[][] = [];
  fail: Error | undefined;
  /** Settlements fail too (they are written in a later batch: set apart from `fail`). */
  settleFail: Error | undefined;
  holding = false;
  closed = 0;
  private readonly held: Array<() => void> = [];
  private readonly windows = new Map<string, SharedWindow>();
  private serial = 0;
  private readonly now: () => number;

  constructor(now: () => number) {
    this.now = now;
  }

  /** What the key's window counts now: used, and granted as credit. */
  counted(key: string): { requests: number; tokens: number } {
    const w = this.windows.get(key);
    return { requests: w?.requests ?? 0, tokens: w?.tokens ?? 0 };
  }

  /** Lets a held call arrive (the oldest unless told), to be counted and answered. */
  release(which = 0): void {
    this.held.splice(which, 1)[0]?.();
  }

  async reserve(key: string, limits: KeyLimits, tokens: number, block = 0, returned?: Credit): Promise<Grant> {
    this.calls.push({ key, limits, tokens, block, returned });
    if (this.fail) throw this.fail;
    if (this.holding) await new Promise<void>((resolve) => this.held.push(resolve));
    return this.count(key, limits, tokens, block, returned);
  }

  private count(key: string, limits: KeyLimits, tokens: number, block: number, returned?: Credit): Grant {
    const now = this.now();
    let w = this.windows.get(key);
    if (!w || w.endsAt <= now) {
      w = { id: "w" + ++this.serial, requests: 0, tokens: 0, endsAt: now + WINDOW_MS };
      this.windows.set(key, w);
    }
    if (returned?.window === w.id) {
      w.requests = Math.max(0, w.requests - returned.requests);
      w.tokens = Math.max(0, w.tokens - returned.tokens);
    }
    const none = { requests: 0, tokens: 0 };
    if (!admits(limits, w.requests, w.tokens))
      return {
        allowed: false,
        requests: w.requests,
        tokens: w.tokens,
        resetMs: w.endsAt - now,
        window: w.id,
        credit: none,
      };
    w.requests += 1;
    w.tokens += tokens;
    let requests = block;
    if (limits.rpm > 0) requests = Math.max(0, Math.min(block, Math.floor((limits.rpm - w.requests) / CREDIT_SHARE)));
    const credit = {
      requests: block && limits.rpm > 0 ? requests : 0,
      tokens:
        block && limits.tpm > 0
          ? Math.max(0, Math.min(requests * tokens, Math.floor((limits.tpm - w.tokens) / CREDIT_SHARE)))
          : 0,
    };
    const grant = {
      allowed: true,
      requests: w.requests,
      tokens: w.tokens,
      resetMs: w.endsAt - now,
      window: w.id,
      credit,
    };
    w.requests += credit.requests;
    w.tokens += credit.tokens;
    return grant;
  }

  async settle(key: string, window: string, delta: number, requests?: number): Promise<void> {
    this.passed.push(["settle", key, window, delta, requests]);
    if (this.settleFail) throw this.settleFail;
    const w = this.windows.get(key);
    if (w?.id !== window) return;
    w.tokens = Math.max(0, w.tokens + delta);
    w.requests = Math.max(0, w.requests + (requests ?? 0));
  }

  async reserveSpend(key: string, limits: KeyLimits, tokens: number, spend: SpendAsk): Promise<Decision> {
    this.passed.push(["reserveSpend", key, limits, tokens, spend]);
    return { allowed: true, requests: 1, tokens, resetMs: 5, window: "spend" };
  }

  async settleSpend(budget: string, start: number, cost: number): Promise<void> {
    this.passed.push(["settleSpend", budget, start, cost]);
  }

  async close(): Promise<void> {
    this.closed++;
  }
}

/** Lets every pending promise callback run (the fake calls answer at once). */
const settled = () => new Promise((resolve) => setImmediate(resolve));

function setup(idleMs?: number) {
  const c = clock();
  const shared = new Shared(c.now);
  const windows = new LeasedWindows(shared, idleMs, c.now);
  return { c, shared, windows };
}

const FAR: KeyLimits = { rpm: 1_000, tpm: 0 };

afterEach(() => {
  vi.useRealTimers();
});

describe("spending credit", () => {
  it("a grant's credit is spent without a call, each request counted once in the headers", async () => {
    const { c, shared, windows } = setup();
    const first = await windows.reserve("k", FAR, 0);
    expect(first).toEqual({
      allowed: true,
      requests: 1,
      tokens: 0,
      resetMs: WINDOW_MS,
      window: "w1",
      credit: { requests: BLOCK, tokens: 0 },
    });
    expect(shared.calls).toEqual([{ key: "k", limits: FAR, tokens: 0, block: BLOCK, returned: undefined }]);
    c.advance(1_500);
    const local = [];
    for (let i = 0; i < BLOCK; i++) local.push(await windows.reserve("k", FAR, 0));
    expect(local[0]).toEqual({ allowed: true, requests: 2, tokens: 0, resetMs: WINDOW_MS - 1_500, window: "w1" });
    expect(local.map((d) => d.requests)).toEqual(Array.from({ length: BLOCK }, (_, i) => i + 2));
    expect(shared.calls).toHaveLength(1);
    // Spent: the next request goes to the shared windows, with nothing to give back.
    expect((await windows.reserve("k", FAR, 0)).requests).toBe(BLOCK + 2);
    expect(shared.calls[1]).toMatchObject({ block: BLOCK, returned: undefined });
    expect(shared.counted("k").requests).toBe(2 * BLOCK + 2);
    await windows.close();
  });

  it("credit is spent while it covers a request's whole token estimate, to the last token", async () => {
    const { shared, windows } = setup();
    const limits = { rpm: 1_000, tpm: 800 };
    // 10 tokens, then 790 left: 98 tokens of credit (32 requests would carry 320).
    expect((await windows.reserve("k", limits, 10)).allowed).toBe(true);
    expect(shared.counted("k")).toEqual({ requests: 1 + BLOCK, tokens: 10 + 98 });
    for (let i = 0; i < 9; i++) await windows.reserve("k", limits, 10);
    expect(await windows.reserve("k", limits, 8)).toMatchObject({ allowed: true, requests: 11, tokens: 108 });
    expect(shared.calls).toHaveLength(1);
    // No token left: 22 requests of credit go back with the next call, before its check.
    await windows.reserve("k", limits, 1);
    expect(shared.calls[1]).toMatchObject({ block: BLOCK, returned: { window: "w1", requests: 22, tokens: 0 } });
    await windows.close();
  });

  it("a key without a request limit spends token credit for as many requests as it covers", async () => {
    const { shared, windows } = setup();
    const limits = { rpm: 0, tpm: 1_000 };
    // 990 left: 123 tokens of credit, no request credit (requests are not counted).
    expect((await windows.reserve("k", limits, 10)).allowed).toBe(true);
    expect(shared.counted("k")).toEqual({ requests: 1, tokens: 10 + 123 });
    for (let i = 0; i < 12; i++) expect((await windows.reserve("k", limits, 10)).allowed).toBe(true);
    expect(shared.calls).toHaveLength(1);
    await windows.reserve("k", limits, 10);
    expect(shared.calls[1].returned).toEqual({ window: "w1", requests: 0, tokens: 3 });
    await windows.close();
  });

  it("a key without a token limit spends request credit whatever the tokens", async () => {
    const { shared, windows } = setup();
    await windows.reserve("k", FAR, 500);
    expect(await windows.reserve("k", FAR, 10_000)).toMatchObject({ allowed: true, requests: 2, tokens: 10_500 });
    expect(shared.calls).toHaveLength(1);
    await windows.close();
    // At shutdown the 31 requests unspent went back; the tokens spent locally were never counted.
    expect(shared.counted("k")).toEqual({ requests: 2, tokens: 500 });
  });

  it("a lease ends with its window: spent up to its last millisecond, then the request goes to a new window", async () => {
    const { c, shared, windows } = setup();
    await windows.reserve("k", FAR, 0);
    c.advance(WINDOW_MS - 1);
    expect(await windows.reserve("k", FAR, 0)).toMatchObject({ requests: 2, resetMs: 1, window: "w1" });
    c.advance(1);
    expect(await windows.reserve("k", FAR, 0)).toMatchObject({ requests: 1, resetMs: WINDOW_MS, window: "w2" });
    expect(shared.calls).toHaveLength(2);
    await windows.close();
  });

  it("credit is spent only under the limits it was granted under; a plain request may spend a run's", async () => {
    const { shared, windows } = setup();
    const run = { rpm: 1_000, tpm: 100_000 };
    // 32 requests and 3,200 tokens of credit.
    expect((await windows.reserve("k", run, 100)).allowed).toBe(true);
    expect(shared.counted("k")).toEqual({ requests: 1 + BLOCK, tokens: 100 + 3_200 });
    expect((await windows.reserve("k", { rpm: 1_000, tpm: 0 }, 0)).requests).toBe(2);
    expect(shared.calls).toHaveLength(1);
    // A plain limit with tokens, or another token limit: to the shared windows, the credit given back.
    await windows.reserve("k", { rpm: 1_000, tpm: 0 }, 5);
    expect(shared.calls[1]).toMatchObject({ tokens: 5, returned: { window: "w1", requests: 31, tokens: 3_200 } });
    await windows.reserve("k", run, 100);
    await windows.reserve("k", { rpm: 1_000, tpm: 50_000 }, 0);
    expect(shared.calls[3]).toMatchObject({ limits: { rpm: 1_000, tpm: 50_000 }, returned: { requests: 32 } });
    // A plain key's credit is not spent by a run, nor under another request limit.
    await windows.reserve("k", { rpm: 1_000, tpm: 0 }, 5);
    await windows.reserve("k", { rpm: 1_000, tpm: 100_000 }, 0);
    await windows.reserve("k", { rpm: 999, tpm: 100_000 }, 0);
    expect(shared.calls).toHaveLength(7);
    await windows.close();
  });

  it("each key spends its own credit", async () => {
    const { shared, windows } = setup();
    await windows.reserve("a", FAR, 0);
    expect((await windows.reserve("b", FAR, 0)).requests).toBe(1);
    expect(shared.calls.map((call) => call.key)).toEqual(["a", "b"]);
    await windows.close();
  });

  it("a refusal is answered as the shared windows gave it, and leaves no lease", async () => {
    const { shared, windows } = setup();
    const one = { rpm: 1, tpm: 0 };
    await windows.reserve("k", one, 0);
    const refused = await windows.reserve("k", one, 0);
    expect(refused).toEqual({
      allowed: false,
      requests: 1,
      tokens: 0,
      resetMs: WINDOW_MS,
      window: "w1",
      credit: { requests: 0, tokens: 0 },
    });
    expect((await windows.reserve("k", one, 0)).allowed).toBe(false);
    expect(shared.calls).toHaveLength(3);
    await windows.close();
  });
});

describe("one call per key asking for credit", () => {
  it("requests arriving while a grant is on its way wait for it and spend it: one call", async () => {
    const { shared, windows } = setup();
    shared.holding = true;
    const burst = Array.from({ length: 10 }, () => windows.reserve("k", FAR, 0));
    await settled();
    shared.release();
    const answers = await Promise.all(burst);
    expect(answers.every((d) => d.allowed)).toBe(true);
    expect(answers.map((d) => d.requests)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    expect(shared.calls).toHaveLength(1);
    await windows.close();
  });

  it("those the grant does not cover ask again, one of them for credit, and each request and token is counted once", async () => {
    const { shared, windows } = setup();
    const limits = { rpm: 40, tpm: 100_000 };
    shared.holding = true;
    // 39 left after the first: 4 requests (40 tokens) of credit, for 4 of the 7 waiting.
    const burst = Array.from({ length: 8 }, () => windows.reserve("k", limits, 10));
    await settled();
    shared.holding = false;
    shared.release();
    const answers = await Promise.all(burst);
    expect(shared.calls.map((call) => call.block)).toEqual([BLOCK, BLOCK, 0, 0]);
    // The calls without credit were answered after the second grant: its unspent credit is not counted as used.
    expect(answers.map((d) => [d.requests, d.tokens]).sort((x, y) => x[0] - y[0])).toEqual(
      Array.from({ length: 8 }, (_, i) => [i + 1, 10 * (i + 1)]),
    );
    // The next request spends what is left of the second grant (4 of credit: 34 were left after it).
    expect(await windows.reserve("k", limits, 10)).toMatchObject({ allowed: true, requests: 9, tokens: 90 });
    expect(shared.calls).toHaveLength(4);
    await windows.close();
    expect(shared.counted("k")).toEqual({ requests: 9, tokens: 90 });
  });

  it("a request arriving while credit is asked for waits for that grant, not for a call asking none", async () => {
    const { shared, windows } = setup();
    const limits = { rpm: 40, tpm: 0 };
    shared.holding = true;
    const burst = Array.from({ length: 7 }, () => windows.reserve("k", limits, 0));
    await settled();
    // The first grant (4 of credit) covers four; the sixth asks for credit, the seventh for none.
    shared.release();
    await settled();
    shared.holding = false;
    const late = windows.reserve("k", limits, 0);
    shared.release(1); // the call without credit arrives first
    await settled();
    shared.release();
    const answers = await Promise.all([...burst, late]);
    expect(shared.calls.map((call) => call.block)).toEqual([BLOCK, BLOCK, 0]);
    expect(answers.map((d) => d.requests).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    await windows.close();
  });

  it.each([
    ["request", { rpm: 2_000, tpm: 0 }],
    ["token", { rpm: 1_000, tpm: 100_000 }],
  ])("a grant answered under another %s limit replaces the lease, whose credit goes back", async (_, y) => {
    const { shared, windows } = setup();
    const x = { rpm: 1_000, tpm: 0 };
    shared.holding = true;
    // The first call is held; the two waiting ask again when it is answered: x for credit, y without.
    const first = windows.reserve("k", { rpm: 10, tpm: 0 }, 0);
    const waiting = [windows.reserve("k", x, 0), windows.reserve("k", y, 0)];
    await settled();
    shared.holding = false;
    shared.release();
    await Promise.all([first, ...waiting]);
    expect(shared.calls.map((call) => [call.limits, call.block])).toEqual([
      [{ rpm: 10, tpm: 0 }, BLOCK],
      [x, BLOCK],
      [y, 0],
    ]);
    // y's answer came last: x's 32 of credit went back; y's lease has none, so y goes to the windows.
    await settled();
    expect(shared.counted("k").requests).toBe(3);
    await windows.reserve("k", y, 0);
    expect(shared.calls).toHaveLength(4);
    await windows.close();
  });

  it("a refusal under other limits leaves the lease as it was", async () => {
    const { shared, windows } = setup();
    const [x, y] = [
      { rpm: 1_000, tpm: 0 },
      { rpm: 2, tpm: 0 },
    ];
    shared.holding = true;
    const first = windows.reserve("k", { rpm: 10, tpm: 0 }, 0);
    const waiting = [windows.reserve("k", x, 0), windows.reserve("k", y, 0)];
    await settled();
    shared.holding = false;
    shared.release();
    const [, granted, refused] = await Promise.all([first, ...waiting]);
    expect(granted).toMatchObject({ allowed: true, requests: 2 });
    // Counted as Redis answered it: x's 32 of credit included.
    expect(refused).toMatchObject({ allowed: false, requests: 34 });
    expect(await windows.reserve("k", x, 0)).toMatchObject({ allowed: true, requests: 3 });
    expect(shared.calls).toHaveLength(3);
    await windows.close();
  });

  it("a grant of the next window, answered after the last window's lease, starts a lease of its own", async () => {
    const { c, shared, windows } = setup();
    const [small, large] = [
      { rpm: 10, tpm: 0 },
      { rpm: 1_000, tpm: 0 },
    ];
    shared.holding = true;
    // 1 of credit for the second; the third asks for credit under the larger limit, the fourth for none.
    const burst = [
      windows.reserve("k", small, 0),
      windows.reserve("k", small, 0),
      windows.reserve("k", large, 0),
      windows.reserve("k", large, 0),
    ];
    await settled();
    shared.release();
    await settled();
    shared.release(); // 32 of credit, in the window ending at 61,000
    await settled();
    c.advance(WINDOW_MS);
    shared.holding = false;
    shared.release(); // counted in the next window
    const answers = await Promise.all(burst);
    expect(answers.map((d) => [d.requests, d.window])).toEqual([
      [1, "w1"],
      [2, "w1"],
      [3, "w1"],
      [1, "w2"],
    ]);
    // The new lease holds no credit (its call asked none): the next request goes to the windows.
    await windows.reserve("k", large, 0);
    expect(shared.calls.map((call) => call.returned)).toEqual([undefined, undefined, undefined, undefined]);
    await windows.close();
  });
});

describe("failures", () => {
  const away = () => new Error("Redis is away");

  it("a failed call forgets every lease and gives its credit back: nothing answered from credit until a call succeeds", async () => {
    const { shared, windows } = setup();
    await windows.reserve("a", FAR, 0);
    expect(shared.counted("a").requests).toBe(1 + BLOCK);
    shared.fail = away();
    await expect(windows.reserve("b", FAR, 0)).rejects.toThrow("Redis is away");
    shared.fail = undefined;
    await settled();
    expect(shared.counted("a").requests).toBe(1);
    expect((await windows.reserve("a", FAR, 0)).requests).toBe(2);
    expect(shared.calls).toHaveLength(3);
    await windows.close();
  });

  it("a grant that fails fails the requests waiting on it: one call, not one each", async () => {
    const { shared, windows } = setup();
    shared.holding = true;
    shared.fail = away();
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => windows.reserve("k", FAR, 0)));
    expect(outcomes.map((o) => o.status)).toEqual(Array(5).fill("rejected"));
    expect(shared.calls).toHaveLength(1);
    await windows.close();
  });

  it("a grant that arrives after another call failed is not kept: answered as given, its credit goes back", async () => {
    const { shared, windows } = setup();
    shared.holding = true;
    const late = windows.reserve("k", FAR, 0);
    await settled();
    shared.holding = false;
    shared.fail = away();
    await expect(windows.reserve("other", FAR, 0)).rejects.toThrow("Redis is away");
    shared.fail = undefined;
    shared.release();
    expect(await late).toMatchObject({ allowed: true, requests: 1, credit: { requests: BLOCK } });
    await settled();
    expect(shared.counted("k").requests).toBe(1);
    await windows.reserve("k", FAR, 0);
    expect(shared.calls).toHaveLength(3);
    await windows.close();
  });

  it("credit given back while the shared windows are away is dropped, not thrown", async () => {
    const { shared, windows } = setup();
    await windows.reserve("k", FAR, 0);
    shared.settleFail = away();
    await expect(windows.close()).resolves.toBeUndefined();
    await settled();
    expect(shared.passed).toHaveLength(1);
  });
});

describe("giving unused credit back", () => {
  it("credit unused for idleMs goes back at the next sweep, half of idleMs apart; a used lease stays", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const { c, shared, windows } = setup(1_000);
    await windows.reserve("idle", FAR, 0);
    await windows.reserve("busy", FAR, 0);
    c.advance(1_000);
    await windows.reserve("busy", FAR, 0);
    vi.advanceTimersByTime(500); // a sweep: "idle" was used 1,000 ms ago, not more
    await settled();
    expect(shared.counted("idle").requests).toBe(1 + BLOCK);
    c.advance(1);
    vi.advanceTimersByTime(499);
    await settled();
    expect(shared.counted("idle").requests).toBe(1 + BLOCK);
    vi.advanceTimersByTime(1); // the next sweep gives it back
    await settled();
    expect(shared.counted("idle").requests).toBe(1);
    expect(shared.counted("busy").requests).toBe(1 + BLOCK);
    // Gone from this replica: its next request goes to the shared windows.
    await windows.reserve("idle", FAR, 0);
    expect(shared.calls).toHaveLength(3);
    await windows.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a lease whose window ended is forgotten, with nothing to give back", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const { c, shared, windows } = setup(1_000);
    await windows.reserve("k", FAR, 0);
    c.advance(WINDOW_MS);
    vi.advanceTimersByTime(500);
    // Nothing of the ended window goes back, neither now nor with the next call.
    await windows.reserve("k", FAR, 0);
    expect(shared.calls[1].returned).toBeUndefined();
    expect(shared.passed).toEqual([]);
    await windows.close();
  });

  it("sweeps at most every 10 ms, however short idleMs", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const { c, shared, windows } = setup(4);
    await windows.reserve("k", FAR, 0);
    c.advance(5);
    vi.advanceTimersByTime(9);
    await settled();
    expect(shared.counted("k").requests).toBe(1 + BLOCK);
    vi.advanceTimersByTime(1);
    await settled();
    expect(shared.counted("k").requests).toBe(1);
    await windows.close();
  });

  it("at shutdown every unused credit goes back, and the shared windows close", async () => {
    const { shared, windows } = setup();
    await windows.reserve("a", FAR, 0);
    await windows.reserve("b", { rpm: 0, tpm: 1_000 }, 10);
    await windows.reserve("spent", { rpm: 1, tpm: 0 }, 0); // no credit: nothing to give back
    await windows.close();
    await settled();
    expect(shared.passed.map((call) => call[1])).toEqual(["a", "b"]);
    expect([shared.counted("a"), shared.counted("b")]).toEqual([
      { requests: 1, tokens: 0 },
      { requests: 1, tokens: 10 },
    ]);
    expect(shared.closed).toBe(1);
  });

  it("closes over shared windows that have nothing to close", async () => {
    const c = clock();
    const shared = new Shared(c.now);
    const plain: CreditWindows = {
      reserve: (key, limits, tokens, block, returned) => shared.reserve(key, limits, tokens, block, returned),
      settle: (key, window, delta, requests) => shared.settle(key, window, delta, requests),
      reserveSpend: (key, limits, tokens, spend) => shared.reserveSpend(key, limits, tokens, spend),
      settleSpend: (budget, start, cost) => shared.settleSpend(budget, start, cost),
    };
    const windows = new LeasedWindows(plain, IDLE_MS, c.now);
    await windows.reserve("k", FAR, 0);
    await expect(windows.close()).resolves.toBeUndefined();
    expect(shared.counted("k").requests).toBe(1);
  });
});

describe("what is not leased", () => {
  it("settlements and runs with a budget go to the shared windows every time; the key's lease stays", async () => {
    const { shared, windows } = setup();
    await windows.reserve("k", FAR, 0);
    const ask: SpendAsk = { cost: 5, budgets: [] };
    expect(await windows.reserveSpend("k", FAR, 3, ask)).toMatchObject({ window: "spend" });
    await windows.settle("k", "w1", -2);
    await windows.settleSpend("key:k", 7, -5);
    expect(shared.passed).toEqual([
      ["reserveSpend", "k", FAR, 3, ask],
      ["settle", "k", "w1", -2, undefined],
      ["settleSpend", "key:k", 7, -5],
    ]);
    expect((await windows.reserve("k", FAR, 0)).requests).toBe(2);
    expect(shared.calls).toHaveLength(1);
    await windows.close();
  });

  it("without a clock of its own it times leases on the monotonic clock", async () => {
    const shared = new Shared(clock().now);
    const windows = new LeasedWindows(shared);
    await windows.reserve("k", FAR, 0);
    const local = await windows.reserve("k", FAR, 0);
    expect(local.requests).toBe(2);
    expect(local.resetMs).toBeGreaterThan(WINDOW_MS - 10_000);
    expect(local.resetMs).toBeLessThanOrEqual(WINDOW_MS);
    await windows.close();
  });
});
