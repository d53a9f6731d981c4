/** The admission rule and the in-memory one-minute windows, on a clock the test moves. */
import { describe, expect, it } from "vitest";
import {
  admits,
  ALERT_100,
  ALERT_80,
  budgetAdmits,
  MemoryWindows,
  thresholdsReached,
  WINDOW_MS,
  type KeyLimits,
} from "../../../../../../service/src/domain/limits/windows.js";

/** A clock that only moves when told. */
function clock(start = 1_700_000_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

const limits = (rpm: number, tpm: number): KeyLimits => ({ rpm, tpm });

describe("admits: a request unit left, and tokens not yet spent", () => {
  it("admits below the request limit and refuses at it", () => {
    expect(admits(limits(3, 0), 2, 0)).toBe(true);
    expect(admits(limits(3, 0), 3, 0)).toBe(false);
  });

  it("admits while tokens spent are below tpm, and refuses once they reach it (tokens < tpm, not <=)", () => {
    expect(admits(limits(0, 100), 0, 99)).toBe(true);
    expect(admits(limits(0, 100), 0, 100)).toBe(false);
  });

  it("0 means unlimited, in each dimension on its own", () => {
    expect(admits(limits(0, 0), 1_000_000, 1_000_000)).toBe(true);
    expect(admits(limits(0, 10), 1_000_000, 0)).toBe(true);
    expect(admits(limits(10, 0), 0, 1_000_000)).toBe(true);
  });

  it("both limits must admit: either one spent refuses", () => {
    expect(admits(limits(3, 100), 3, 0)).toBe(false);
    expect(admits(limits(3, 100), 0, 100)).toBe(false);
    expect(admits(limits(3, 100), 2, 99)).toBe(true);
  });
});

describe("MemoryWindows", () => {
  it("answers the window's use after the reservation, its reset and its identity", async () => {
    const c = clock();
    const w = new MemoryWindows(c.now);
    const first = await w.reserve("k", limits(10, 1_000), 40);
    expect(first).toEqual({ allowed: true, requests: 1, tokens: 40, resetMs: WINDOW_MS, window: expect.any(String) });
    c.advance(15_000);
    const second = w.reserveNow("k", limits(10, 1_000), 2);
    expect(second).toEqual({
      allowed: true,
      requests: 2,
      tokens: 42,
      resetMs: WINDOW_MS - 15_000,
      window: first.window,
    });
  });

  it("counts each key on its own", () => {
    const w = new MemoryWindows(clock().now);
    w.reserveNow("a", limits(1, 0), 0);
    expect(w.reserveNow("a", limits(1, 0), 0).allowed).toBe(false);
    expect(w.reserveNow("b", limits(1, 0), 0).allowed).toBe(true);
  });

  it("refuses a key at its request limit, and refused requests are not counted", () => {
    const w = new MemoryWindows(clock().now);
    for (let i = 0; i < 2; i++) expect(w.reserveNow("k", limits(2, 0), 5).allowed).toBe(true);
    const refused = w.reserveNow("k", limits(2, 0), 5);
    expect(refused).toMatchObject({ allowed: false, requests: 2, tokens: 10 });
    expect(w.reserveNow("k", limits(2, 0), 5)).toMatchObject({ allowed: false, requests: 2, tokens: 10 });
  });

  it("admits the request that brings tokens to tpm or past it, and refuses the next one", () => {
    const w = new MemoryWindows(clock().now);
    expect(w.reserveNow("k", limits(0, 100), 99)).toMatchObject({ allowed: true, tokens: 99 });
    expect(w.reserveNow("k", limits(0, 100), 50)).toMatchObject({ allowed: true, tokens: 149 });
    expect(w.reserveNow("k", limits(0, 100), 1)).toMatchObject({ allowed: false, tokens: 149 });
  });

  it("a limited key is admitted again once its window ends, not a millisecond before", () => {
    const c = clock();
    const w = new MemoryWindows(c.now);
    const first = w.reserveNow("k", limits(1, 0), 0);
    c.advance(WINDOW_MS - 1);
    expect(w.reserveNow("k", limits(1, 0), 0)).toMatchObject({ allowed: false, resetMs: 1 });
    c.advance(1);
    const next = w.reserveNow("k", limits(1, 0), 0);
    expect(next).toMatchObject({ allowed: true, requests: 1, tokens: 0, resetMs: WINDOW_MS });
    expect(next.window).not.toBe(first.window);
  });

  it("a window ends by its own clock, between two sweeps too", async () => {
    const c = clock();
    const w = new MemoryWindows(c.now);
    c.advance(WINDOW_MS / 2);
    const first = w.reserveNow("k", limits(1, 100), 60); // ends at 1.5 windows
    c.advance(WINDOW_MS / 2);
    w.reserveNow("other", limits(0, 0), 0); // a sweep, at 1 window: "k" still lasts
    c.advance(WINDOW_MS / 2 - 1);
    await w.settle("k", first.window, -10);
    expect(w.reserveNow("k", limits(1, 100), 0)).toMatchObject({ allowed: false, tokens: 50, resetMs: 1 });
    c.advance(1);
    // "k" ended half a window after the last sweep: it is not swept yet, and answers nothing more.
    await w.settle("k", first.window, -50);
    const next = w.reserveNow("k", limits(1, 100), 0);
    expect(next).toMatchObject({ allowed: true, requests: 1, tokens: 0, resetMs: WINDOW_MS });
    expect(next.window).not.toBe(first.window);
  });

  it("a refund lands in the window it was reserved in", async () => {
    const w = new MemoryWindows(clock().now);
    const r = w.reserveNow("k", limits(0, 100), 80);
    await w.settle("k", r.window, -60);
    expect(w.reserveNow("k", limits(0, 100), 0)).toMatchObject({ allowed: true, tokens: 20 });
  });

  it("a settlement adds tokens when the run used more than reserved", async () => {
    const w = new MemoryWindows(clock().now);
    const r = w.reserveNow("k", limits(0, 100), 10);
    await w.settle("k", r.window, 95);
    expect(w.reserveNow("k", limits(0, 100), 0)).toMatchObject({ allowed: false, tokens: 105 });
  });

  it("a refund never takes a window below zero", async () => {
    const w = new MemoryWindows(clock().now);
    const r = w.reserveNow("k", limits(0, 100), 10);
    await w.settle("k", r.window, -500);
    expect(w.reserveNow("k", limits(0, 100), 7)).toMatchObject({ tokens: 7 });
  });

  it("a refund is not credited to the next window", async () => {
    const c = clock();
    const w = new MemoryWindows(c.now);
    const old = w.reserveNow("k", limits(0, 100), 90);
    c.advance(WINDOW_MS);
    const fresh = w.reserveNow("k", limits(0, 100), 30);
    await w.settle("k", old.window, -90);
    expect(w.reserveNow("k", limits(0, 100), 0)).toMatchObject({ window: fresh.window, tokens: 30 });
  });

  it("a settlement that arrives when its window has ended is dropped, even before the next request", async () => {
    const c = clock();
    const w = new MemoryWindows(c.now);
    const r = w.reserveNow("k", limits(0, 100), 90);
    c.advance(WINDOW_MS - 1);
    await w.settle("k", r.window, -50);
    expect(w.reserveNow("k", limits(0, 100), 0)).toMatchObject({ tokens: 40 });
    c.advance(1);
    await w.settle("k", r.window, -40);
    // The window ended: it answers nothing more, the next reservation starts a fresh one.
    expect(w.reserveNow("k", limits(0, 100), 0)).toMatchObject({ tokens: 0, resetMs: WINDOW_MS });
  });

  it("a settlement for an unknown key or window changes nothing", async () => {
    const w = new MemoryWindows(clock().now);
    const r = w.reserveNow("k", limits(0, 100), 50);
    await w.settle("other", r.window, -50);
    await w.settle("k", "not-this-window", -50);
    expect(w.reserveNow("k", limits(0, 100), 0)).toMatchObject({ tokens: 50 });
  });

  it("expired windows are swept once a window has passed, so memory holds only recent keys", () => {
    const c = clock();
    const w = new MemoryWindows(c.now);
    for (let i = 0; i < 5; i++) w.reserveNow(`old-${i}`, limits(0, 0), 0);
    c.advance(WINDOW_MS - 1);
    w.reserveNow("recent", limits(0, 0), 0);
    expect(w.size).toBe(6);
    c.advance(1);
    // A window since the last sweep: the five old windows ended and go; "recent" still lasts.
    w.reserveNow("another", limits(0, 0), 0);
    expect(w.size).toBe(2);
  });

  it("sweeps at most once a window: an expired window stays until the next sweep", () => {
    const c = clock();
    const w = new MemoryWindows(c.now);
    c.advance(WINDOW_MS / 2);
    w.reserveNow("x", limits(0, 0), 0); // ends at 1.5 windows
    c.advance(WINDOW_MS / 2);
    w.reserveNow("a", limits(0, 0), 0); // a window since the clock started: sweeps (nothing has ended)
    c.advance(WINDOW_MS / 2);
    w.reserveNow("b", limits(0, 0), 0); // "x" ended, but the last sweep was half a window ago
    expect(w.size).toBe(3);
    c.advance(WINDOW_MS / 2);
    w.reserveNow("c", limits(0, 0), 0); // sweeps: "x" and "a" ended, "b" lasts
    expect(w.size).toBe(2);
  });
});

describe("the budget rules", () => {
  it("admits until the budget is spent; alerts at 80% and 100%", () => {
    expect(budgetAdmits(100, 99)).toBe(true);
    expect(budgetAdmits(100, 100)).toBe(false);
    expect(thresholdsReached(79, 100)).toBe(0);
    expect(thresholdsReached(80, 100)).toBe(ALERT_80);
    expect(thresholdsReached(99, 100)).toBe(ALERT_80);
    expect(thresholdsReached(100, 100)).toBe(ALERT_80 | ALERT_100);
  });
});

describe("the in-memory windows with budgets (one replica, or the fallback while Redis is away)", () => {
  const limits = { rpm: 0, tpm: 0 };
  const budget = (limit: number, start = 0, seed?: number) => ({ id: "key:k", limit, start, end: null, seed });

  it("asks for the store's figure once per window, then admits until spent, overshooting by one run at most", () => {
    const w = new MemoryWindows();
    const unseeded = w.reserveSpendNow("k", limits, 0, { cost: 30, budgets: [budget(100)] });
    expect(unseeded.allowed).toBe(false);
    expect(unseeded.spend?.unseeded).toEqual([0]);
    const admitted = [];
    for (let i = 0; i < 6; i++) {
      const d = w.reserveSpendNow("k", limits, 0, { cost: 30, budgets: [budget(100, 0, 10)] });
      admitted.push(d.allowed);
      if (!d.allowed) expect(d.spend?.refused).toBe(0);
    }
    // 10 + 30 × 3 = 100: three admitted (the third starts at 70 < 100), the fourth refused.
    expect(admitted).toEqual([true, true, true, false, false, false]);
  });

  it("a settlement refunds; a new window starts from its seed; each alert once a window", async () => {
    const w = new MemoryWindows();
    const first = w.reserveSpendNow("k", limits, 0, { cost: 85, budgets: [budget(100, 0, 0)] });
    expect(first.spend?.crossed).toEqual([ALERT_80]);
    await w.settleSpend("key:k", 0, -80);
    const second = w.reserveSpendNow("k", limits, 0, { cost: 90, budgets: [budget(100, 0)] });
    expect(second.allowed).toBe(true);
    expect(second.spend?.spent).toEqual([95]);
    expect(second.spend?.crossed).toEqual([0]); // 80% was raised already in this window
    expect(w.reserveSpendNow("k", limits, 0, { cost: 5, budgets: [budget(100, 0)] }).spend?.crossed).toEqual([
      ALERT_100,
    ]);
    // The next window: asked again, started from its seed, alerts afresh.
    expect(w.reserveSpendNow("k", limits, 0, { cost: 1, budgets: [budget(100, 1000)] }).spend?.unseeded).toEqual([0]);
    const next = w.reserveSpendNow("k", limits, 0, { cost: 1, budgets: [budget(100, 1000, 0)] });
    expect(next.spend?.spent).toEqual([1]);
  });

  it("an unseeded budget refuses with empty headers; a refusal by the rate limit or a budget carries the window's", async () => {
    const c = clock();
    const w = new MemoryWindows(c.now);
    const unseeded = await w.reserveSpend("k", limits, 7, { cost: 5, budgets: [budget(100)] });
    expect(unseeded).toMatchObject({ allowed: false, requests: 0, tokens: 0, resetMs: 0, window: "" });
    expect(unseeded.spend).toEqual({ unseeded: [0], spent: [], crossed: [] });
    const first = await w.reserveSpend("k", { rpm: 2, tpm: 0 }, 7, { cost: 5, budgets: [budget(10, 0, 0)] });
    expect(first.allowed).toBe(true);
    c.advance(1_000);
    const second = w.reserveSpendNow("k", { rpm: 2, tpm: 0 }, 7, { cost: 5, budgets: [budget(10, 0)] });
    expect(second).toMatchObject({ allowed: true, requests: 2, tokens: 14, window: first.window });
    const byRate = w.reserveSpendNow("k", { rpm: 2, tpm: 0 }, 7, { cost: 1, budgets: [budget(10, 0)] });
    expect(byRate).toMatchObject({ allowed: false, requests: 2, tokens: 14, resetMs: WINDOW_MS - 1_000 });
    expect(byRate.spend).toEqual({ unseeded: [], spent: [10], crossed: [] });
    const byBudget = w.reserveSpendNow("k2", limits, 7, { cost: 1, budgets: [budget(10, 0)] });
    expect(byBudget).toMatchObject({ allowed: false, requests: 0, tokens: 0, resetMs: WINDOW_MS });
    expect(byBudget.spend).toEqual({ refused: 0, unseeded: [], spent: [10], crossed: [0] });
  });

  it("a rate limit refuses before any budget is counted", () => {
    const w = new MemoryWindows();
    expect(w.reserveSpendNow("k", { rpm: 1, tpm: 0 }, 0, { cost: 5, budgets: [budget(100, 0, 0)] }).allowed).toBe(true);
    const refused = w.reserveSpendNow("k", { rpm: 1, tpm: 0 }, 0, { cost: 5, budgets: [budget(100, 0)] });
    expect(refused.allowed).toBe(false);
    expect(refused.spend?.refused).toBeUndefined();
    expect(refused.spend?.spent).toEqual([5]);
  });
});

describe("the in-memory budget windows over time", () => {
  const open = { rpm: 0, tpm: 0 };
  /** A budget window from `start` to `end` (null: never ends). */
  const window = (id: string, start: number, end: number | null, seed?: number) => ({
    id,
    limit: 1_000,
    start,
    end,
    seed,
  });
  /** Whether the windows still hold the budget's window: held ones need no seed. */
  const holds = (w: MemoryWindows, b: ReturnType<typeof window>) =>
    w.reserveSpendNow("probe", open, 0, { cost: 0, budgets: [{ ...b, seed: undefined }] }).spend?.unseeded.length === 0;

  it("a budget window that ended is swept with the key windows, not before; one without an end stays", () => {
    const c = clock();
    const t0 = c.now();
    const w = new MemoryWindows(c.now);
    const ending = window("key:a", t0, t0 + WINDOW_MS);
    const later = window("key:b", t0, t0 + 2 * WINDOW_MS);
    const endless = window("project:p", t0, null);
    w.reserveSpendNow("k", open, 0, { cost: 1, budgets: [ending, later, endless].map((b) => ({ ...b, seed: 0 })) });
    c.advance(WINDOW_MS - 1);
    w.reserveNow("other", open, 0); // no sweep yet: not a window since the last one
    expect([holds(w, ending), holds(w, later), holds(w, endless)]).toEqual([true, true, true]);
    c.advance(1);
    w.reserveNow("other", open, 0); // sweeps at the very millisecond "key:a" ends
    expect([holds(w, ending), holds(w, later), holds(w, endless)]).toEqual([false, true, true]);
  });

  it("a settlement for a budget window that has moved on, or a budget never seen, changes nothing", async () => {
    const w = new MemoryWindows(clock().now);
    const first = window("key:k", 0, null, 0);
    const next = window("key:k", 1_000, null, 100);
    w.reserveSpendNow("k", open, 0, { cost: 50, budgets: [first] });
    w.reserveSpendNow("k", open, 0, { cost: 50, budgets: [next] });
    await w.settleSpend("key:k", 0, -50);
    await expect(w.settleSpend("key:unknown", 0, -50)).resolves.toBeUndefined();
    expect(w.reserveSpendNow("k", open, 0, { cost: 0, budgets: [next] }).spend?.spent).toEqual([150]);
  });

  it("without a clock of its own it counts on the wall clock", () => {
    const before = Date.now();
    const d = new MemoryWindows().reserveNow("k", open, 0);
    // The window ends a minute after the reservation (a millisecond more if the clock ticked between).
    expect(d.resetMs).toBeGreaterThanOrEqual(WINDOW_MS);
    expect(d.resetMs).toBeLessThanOrEqual(WINDOW_MS + Date.now() - before);
  });
});
