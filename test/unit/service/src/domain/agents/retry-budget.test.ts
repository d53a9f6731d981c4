/** The retry budget on a hand-moved clock: its share, its floor, and the window's slices as time passes. */
import { describe, expect, it } from "vitest";
import { RetryBudget } from "../../../../../../service/src/domain/agents/retry-budget.js";

describe("retry budget", () => {
  it("allows `min` retries, plus `percent` of the calls in the window, and no more", () => {
    const clock = { t: 0 };
    const budget = new RetryBudget({ percent: 20, min: 2, windowMs: 10_000 }, () => clock.t);
    expect([budget.tryRetry(), budget.tryRetry(), budget.tryRetry()]).toEqual([true, true, false]);
    for (let i = 0; i < 10; i++) budget.called();
    expect([budget.tryRetry(), budget.tryRetry(), budget.tryRetry()]).toEqual([true, true, false]);
  });

  it("calls and retries leave the window as time passes", () => {
    const clock = { t: 0 };
    const budget = new RetryBudget({ percent: 50, min: 0, windowMs: 10_000 }, () => clock.t);
    for (let i = 0; i < 4; i++) budget.called();
    expect([budget.tryRetry(), budget.tryRetry(), budget.tryRetry()]).toEqual([true, true, false]);
    clock.t += 10_000;
    expect(budget.tryRetry()).toBe(false);
    budget.called();
    budget.called();
    expect([budget.tryRetry(), budget.tryRetry()]).toEqual([true, false]);
  });

  it("the share of the calls is rounded down", () => {
    const clock = { t: 0 };
    const budget = new RetryBudget({ percent: 20, min: 0, windowMs: 10_000 }, () => clock.t);
    for (let i = 0; i < 9; i++) budget.called();
    expect([budget.tryRetry(), budget.tryRetry()]).toEqual([true, false]);
    budget.called();
    expect([budget.tryRetry(), budget.tryRetry()]).toEqual([true, false]);
  });

  it("counts every slice of the window, and drops each slice as it leaves", () => {
    const clock = { t: 0 };
    const budget = new RetryBudget({ percent: 100, min: 0, windowMs: 10_000 }, () => clock.t);
    budget.called(); // slice 0
    clock.t = 9_500;
    budget.called(); // slice 9
    expect([budget.tryRetry(), budget.tryRetry(), budget.tryRetry()]).toEqual([true, true, false]);
    // 10 000 starts slice 10: slice 0 (one call) has left; the retries of slice 9 remain.
    clock.t = 10_000;
    budget.called();
    expect(budget.tryRetry()).toBe(false);
    // 15 000: calls in slices 9, 10 and 15 (three), two retries: one more.
    clock.t = 15_000;
    budget.called();
    expect([budget.tryRetry(), budget.tryRetry()]).toEqual([true, false]);
    // 19 000 starts slice 19: slice 9 leaves with its call and its two retries.
    clock.t = 19_000;
    expect([budget.tryRetry(), budget.tryRetry()]).toEqual([true, false]);
  });

  it("after a long quiet, nothing of before counts", () => {
    const clock = { t: 0 };
    const budget = new RetryBudget({ percent: 100, min: 0, windowMs: 10_000 }, () => clock.t);
    for (let i = 0; i < 5; i++) budget.called();
    clock.t = 3_000;
    for (let i = 0; i < 5; i++) budget.called();
    clock.t = 25_000;
    expect(budget.tryRetry()).toBe(false);
    budget.called();
    expect([budget.tryRetry(), budget.tryRetry()]).toEqual([true, false]);
  });

  it("a clock that steps back starts its slice afresh", () => {
    const clock = { t: 15_000 };
    const budget = new RetryBudget({ percent: 100, min: 0, windowMs: 10_000 }, () => clock.t);
    for (let i = 0; i < 5; i++) budget.called();
    clock.t = 5_000; // the same slot, an older slice
    expect(budget.tryRetry()).toBe(false);
  });

  it("a window shorter than its slices is counted in slices of 1 ms", () => {
    const clock = { t: 0 };
    const budget = new RetryBudget({ percent: 100, min: 0, windowMs: 5 }, () => clock.t);
    budget.called();
    clock.t = 9;
    expect(budget.tryRetry()).toBe(true);
    // 10 starts slice 10: slice 0's call has left, slice 9's retry has not.
    clock.t = 10;
    budget.called();
    budget.called();
    expect([budget.tryRetry(), budget.tryRetry()]).toEqual([true, false]);
  });

  it("runs on the real clock by default", () => {
    const budget = new RetryBudget({ percent: 0, min: 1, windowMs: 600_000 });
    expect([budget.tryRetry(), budget.tryRetry()]).toEqual([true, false]);
  });
});
