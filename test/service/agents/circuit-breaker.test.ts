/** The breaker's and the retry budget's state machines on a hand-moved clock: every transition, nothing else. */
import { describe, expect, it } from "vitest";
import { CircuitBreaker, type BreakerState } from "../../../service/src/domain/agents/circuit-breaker.js";
import { RetryBudget } from "../../../service/src/domain/agents/retry-budget.js";

function breaker(failures = 3, windowMs = 1_000, cooldownMs = 5_000) {
  const clock = { t: 1_000_000 };
  const moves: Array<[BreakerState, BreakerState]> = [];
  const b = new CircuitBreaker(
    { failures, windowMs, cooldownMs },
    () => clock.t,
    (from, to) => moves.push([from, to]),
  );
  return { b, clock, moves };
}

describe("circuit breaker", () => {
  it("opens on the Nth failure within the window, not on N-1", () => {
    const { b, moves } = breaker();
    b.failed();
    b.failed();
    expect(b.state).toBe("closed");
    expect(b.acquire()).toBe(true);
    b.failed();
    expect(b.state).toBe("open");
    expect(b.acquire()).toBe(false);
    expect(moves).toEqual([["closed", "open"]]);
  });

  it("forgets failures older than the window, and all of them on a success", () => {
    const { b, clock } = breaker();
    b.failed();
    b.failed();
    clock.t += 1_000;
    b.failed();
    expect(b.state).toBe("closed");
    b.failed();
    b.succeeded();
    b.failed();
    b.failed();
    expect(b.state).toBe("closed");
  });

  it("stays open for the whole cooldown, then lets exactly one probe through", () => {
    const { b, clock, moves } = breaker();
    for (let i = 0; i < 3; i++) b.failed();
    clock.t += 4_999;
    expect(b.acquire()).toBe(false);
    expect(b.openFor()).toBe(1);
    clock.t += 1;
    expect(b.state).toBe("half_open");
    expect(b.acquire()).toBe(true);
    expect(b.acquire()).toBe(false);
    expect(moves).toEqual([
      ["closed", "open"],
      ["open", "half_open"],
    ]);
  });

  it("a probe that succeeds closes it; one that fails opens it for a new cooldown", () => {
    const { b, clock, moves } = breaker();
    for (let i = 0; i < 3; i++) b.failed();
    clock.t += 5_000;
    b.acquire();
    b.failed();
    expect(b.state).toBe("open");
    clock.t += 4_999;
    expect(b.acquire()).toBe(false);
    clock.t += 1;
    expect(b.acquire()).toBe(true);
    b.succeeded();
    expect(b.state).toBe("closed");
    expect(b.acquire()).toBe(true);
    expect(moves.map(([, to]) => to)).toEqual(["open", "half_open", "open", "half_open", "closed"]);
  });

  it("an abandoned probe frees the slot; a lost one is replaced after a cooldown", () => {
    const { b, clock } = breaker();
    for (let i = 0; i < 3; i++) b.failed();
    clock.t += 5_000;
    expect(b.acquire()).toBe(true);
    b.abandoned();
    expect(b.acquire()).toBe(true);
    clock.t += 4_999;
    expect(b.acquire()).toBe(false);
    clock.t += 1;
    expect(b.acquire()).toBe(true);
  });

  it("a failure reported while open does not extend the cooldown", () => {
    const { b, clock } = breaker();
    for (let i = 0; i < 3; i++) b.failed();
    clock.t += 4_000;
    b.failed();
    clock.t += 1_000;
    expect(b.acquire()).toBe(true);
  });

  it("refuses a threshold below one", () => {
    expect(() => new CircuitBreaker({ failures: 0, windowMs: 1, cooldownMs: 1 })).toThrow(RangeError);
  });
});

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
});
