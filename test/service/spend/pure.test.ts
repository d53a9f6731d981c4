/**
 * The pure parts of spend and budgets, with the time passed in: periods and their windows, money
 * as integers, the admission and alert rules, the budgets a run is checked against, and the
 * in-memory windows (the fallback) against them.
 */
import { describe, expect, it } from "vitest";
import { MAX_PERIOD_MS, parsePeriod, periodWindow } from "../../../service/src/domain/spend/budget-period.js";
import { priceMicros, runCost, tokensCost, usd, microsOf } from "../../../service/src/domain/spend/cost.js";
import {
  ALERT_100,
  ALERT_80,
  budgetAdmits,
  MemoryWindows,
  thresholdsReached,
} from "../../../service/src/domain/limits/windows.js";
import { runBudgets } from "../../../service/src/domain/spend/run-budgets.js";

const DAY = 86_400_000;

describe("budget periods", () => {
  it("reads LiteLLM's durations, a calendar month and total, and nothing else", () => {
    expect(parsePeriod("30s")).toEqual({ kind: "duration", ms: 30_000 });
    expect(parsePeriod("15m")).toEqual({ kind: "duration", ms: 900_000 });
    expect(parsePeriod("12h")).toEqual({ kind: "duration", ms: 43_200_000 });
    expect(parsePeriod("7d")).toEqual({ kind: "duration", ms: 7 * DAY });
    expect(parsePeriod("1mo")).toEqual({ kind: "month" });
    expect(parsePeriod("total")).toEqual({ kind: "total" });
    for (const bad of ["", "0s", "01d", "1w", "2mo", "7 d", "-1d", "1.5h", "d", "3651d", "TOTAL"])
      expect(parsePeriod(bad), bad).toBeUndefined();
    expect(parsePeriod("3650d")).toEqual({ kind: "duration", ms: MAX_PERIOD_MS });
  });

  it("counts a duration's windows from the anchor: the window holding now, ending one period on", () => {
    const anchor = Date.UTC(2026, 0, 6, 10); // a Tuesday, 10:00
    const p = parsePeriod("7d")!;
    expect(periodWindow(p, anchor, anchor)).toEqual({ start: anchor, end: anchor + 7 * DAY });
    expect(periodWindow(p, anchor, anchor + 7 * DAY - 1)).toEqual({ start: anchor, end: anchor + 7 * DAY });
    expect(periodWindow(p, anchor, anchor + 7 * DAY)).toEqual({ start: anchor + 7 * DAY, end: anchor + 14 * DAY });
    const s = parsePeriod("2s")!;
    expect(periodWindow(s, 1_000, 4_999)).toEqual({ start: 3_000, end: 5_000 });
  });

  it("a calendar month is UTC's, whatever the anchor; total never ends", () => {
    const m = parsePeriod("1mo")!;
    expect(periodWindow(m, 12345, Date.UTC(2026, 1, 28, 23, 59))).toEqual({
      start: Date.UTC(2026, 1, 1),
      end: Date.UTC(2026, 2, 1),
    });
    expect(periodWindow(m, 0, Date.UTC(2026, 11, 31, 12))).toEqual({
      start: Date.UTC(2026, 11, 1),
      end: Date.UTC(2027, 0, 1),
    });
    expect(periodWindow({ kind: "total" }, 5, Date.now())).toEqual({ start: 0, end: null });
  });
});

describe("money as integers", () => {
  it("takes prices exact to the micro-dollar, and refuses the rest", () => {
    expect(priceMicros(2.5)).toBe(2_500_000);
    expect(priceMicros(0.15)).toBe(150_000);
    expect(priceMicros(0.000001)).toBe(1);
    expect(priceMicros(0)).toBe(0);
    expect(priceMicros(0.0000001)).toBeUndefined();
    expect(priceMicros(-1)).toBeUndefined();
    expect(priceMicros(Number.NaN)).toBeUndefined();
    expect(priceMicros(100_001)).toBeUndefined();
  });

  it("costs tokens × price, rounded up to the micro-dollar, exactly for any count", () => {
    expect(tokensCost(1_000_000, 2_500_000)).toBe(2_500_000);
    expect(tokensCost(1, 2_500_000)).toBe(3); // 2.5 µ$ → 3
    expect(tokensCost(4, 2_500_000)).toBe(10);
    expect(tokensCost(0, 2_500_000)).toBe(0);
    expect(tokensCost(7, 0)).toBe(0);
    // Past 2^53 as a product: BigInt keeps it exact.
    expect(tokensCost(2 ** 31, 100_000_000_000)).toBe(214_748_364_800_000);
  });

  it("splits a run's cost into input (cached at their price) and output; no price costs 0", () => {
    const price = { input: 2_500_000, output: 10_000_000, cachedInput: 1_250_000 };
    expect(runCost(price, { prompt: 1000, completion: 100 })).toEqual({ input: 2_500, output: 1_000 });
    expect(runCost(price, { prompt: 1000, cached: 400, completion: 0 })).toEqual({ input: 1_500 + 500, output: 0 });
    // Cached tokens beyond the prompt's are not believed.
    expect(runCost(price, { prompt: 10, cached: 1e9, completion: 0 })).toEqual({ input: 13, output: 0 });
    expect(runCost({ input: 1_000_000, output: 1_000_000 }, { prompt: 3, cached: 3, completion: 0 })).toEqual({
      input: 3,
      output: 0,
    });
    expect(runCost(undefined, { prompt: 1e6, completion: 1e6 })).toEqual({ input: 0, output: 0 });
    expect(usd(1_234_567)).toBe(1.234567);
    expect(microsOf(10)).toBe(10_000_000);
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

  it("a run is checked against its key's budget from the key's creation and its project's from when it was set", () => {
    const now = Date.UTC(2026, 4, 10, 12);
    const budgets = runBudgets(
      { keyId: "k1", projectId: "p", budget: { limitMicros: 5, period: "1d" }, createdAtMs: now - 1.5 * DAY },
      { limitMicros: 9, period: "1mo", anchorMs: 0, isDefault: false },
      now,
    );
    expect(budgets.map(({ id, scope, limit, start, end }) => ({ id, scope, limit, start, end }))).toEqual([
      { id: "key:k1", scope: "key", limit: 5, start: now - 0.5 * DAY, end: now + 0.5 * DAY },
      { id: "project:p", scope: "project", limit: 9, start: Date.UTC(2026, 4, 1), end: Date.UTC(2026, 5, 1) },
    ]);
    expect(runBudgets({ keyId: "k", projectId: "p" }, undefined, now)).toEqual([]);
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

  it("a rate limit refuses before any budget is counted", () => {
    const w = new MemoryWindows();
    expect(w.reserveSpendNow("k", { rpm: 1, tpm: 0 }, 0, { cost: 5, budgets: [budget(100, 0, 0)] }).allowed).toBe(true);
    const refused = w.reserveSpendNow("k", { rpm: 1, tpm: 0 }, 0, { cost: 5, budgets: [budget(100, 0)] });
    expect(refused.allowed).toBe(false);
    expect(refused.spend?.refused).toBeUndefined();
    expect(refused.spend?.spent).toEqual([5]);
  });
});
