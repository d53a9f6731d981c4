/** The breaker's state machine on a hand-moved clock: every transition, each boundary, nothing else. */
import { describe, expect, it } from "vitest";
import { CircuitBreaker, type BreakerState } from "../../../../../../service/src/domain/agents/circuit-breaker.js";

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
    expect(() => new CircuitBreaker({ failures: 0, windowMs: 1, cooldownMs: 1 })).toThrow(
      "a breaker opens after at least 1 failure",
    );
  });

  it("a threshold of one opens on the first failure; a threshold that is no number is refused", () => {
    const { b } = breaker(1);
    b.failed();
    expect(b.state).toBe("open");
    expect(() => new CircuitBreaker({ failures: Number.NaN, windowMs: 1, cooldownMs: 1 })).toThrow(RangeError);
    expect(() => new CircuitBreaker({ failures: 1, windowMs: 1, cooldownMs: 1 })).not.toThrow();
  });

  it("a failure reported while open leaves the cooldown where it was, even at a threshold of one", () => {
    const { b, clock, moves } = breaker(1);
    b.failed();
    clock.t += 4_000;
    b.failed();
    expect(b.openFor()).toBe(1_000);
    clock.t += 1_000;
    expect(b.acquire()).toBe(true);
    expect(moves).toEqual([
      ["closed", "open"],
      ["open", "half_open"],
    ]);
  });

  it("openFor counts down while open, and is 0 once the cooldown has passed or when not open", () => {
    const { b, clock } = breaker();
    expect(b.openFor()).toBe(0);
    for (let i = 0; i < 3; i++) b.failed();
    expect(b.openFor()).toBe(5_000);
    clock.t += 2_000;
    expect(b.openFor()).toBe(3_000);
    clock.t += 10_000;
    expect(b.openFor()).toBe(0);
    expect(b.acquire()).toBe(true);
    expect(b.openFor()).toBe(0);
  });

  it("a closed breaker stays closed however long since it last opened", () => {
    const { b, clock } = breaker();
    clock.t += 60_000;
    expect(b.state).toBe("closed");
    for (let i = 0; i < 3; i++) b.failed();
    clock.t += 5_000;
    b.acquire();
    b.succeeded();
    clock.t += 60_000;
    expect(b.state).toBe("closed");
    expect(b.acquire()).toBe(true);
    expect(b.acquire()).toBe(true);
  });

  it("a wall clock that steps back neither re-opens a closed breaker nor holds back a half-open one's probe", () => {
    const { b, clock } = breaker();
    for (let i = 0; i < 3; i++) b.failed();
    clock.t += 5_000;
    expect(b.acquire()).toBe(true);
    b.abandoned();
    clock.t -= 1_000;
    expect(b.state).toBe("half_open");
    expect(b.acquire()).toBe(true);
    b.succeeded();
    clock.t -= 1_000;
    expect(b.state).toBe("closed");
    expect(b.openFor()).toBe(0);
  });

  it("a closed breaker's success moves nothing", () => {
    const { b, moves } = breaker();
    b.succeeded();
    expect(moves).toEqual([]);
  });

  it("runs on the real clock by default", () => {
    const b = new CircuitBreaker({ failures: 1, windowMs: 60_000, cooldownMs: 60_000 });
    b.failed();
    expect(b.state).toBe("open");
    expect(b.acquire()).toBe(false);
    expect(b.openFor()).toBeGreaterThan(50_000);
  });
});
