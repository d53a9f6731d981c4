/**
 * The gate's verdict rule on hand-made intervals: each bound placed exactly on, and just past, the
 * tolerance and the noise floor, so a flipped comparison changes a verdict.
 */
import { describe, expect, it } from "vitest";
import type { Interval } from "../../../../loadtest/harness/bootstrap.js";
import {
  judge,
  MIN_SAMPLES,
  minSamples,
  TAIL_SAMPLES,
  type RuleInput,
} from "../../../../loadtest/harness/verdict-rule.js";

const interval = (low: number, high: number, scale: Interval["scale"] = "relative"): Interval => ({
  estimate: (low + high) / 2,
  low,
  high,
  confidence: 0.95,
  scale,
});

/** A rule with enough samples, 25 % tolerance, a 1 ms floor and a 100 ms baseline. */
const rule = (over: Partial<RuleInput>): RuleInput => ({
  interval: interval(0, 0),
  baselineCount: 100,
  currentCount: 100,
  needed: 100,
  better: "lower",
  tolerance: 0.25,
  floor: 1,
  baselineValue: 100,
  ...over,
});

describe("minSamples", () => {
  it("needs TAIL_SAMPLES beyond the quantile, and never fewer than MIN_SAMPLES", () => {
    expect([TAIL_SAMPLES, MIN_SAMPLES]).toEqual([5, 20]);
    expect(minSamples(0.5)).toBe(20);
    expect(minSamples(0)).toBe(20);
    expect(minSamples(0.8)).toBe(25);
    // 5 / 0.05 is 100.00000000000001 in floating point: still 100, not 101.
    expect(minSamples(0.95)).toBe(100);
    expect(minSamples(0.99)).toBe(500);
    expect(minSamples(0.999)).toBe(5000);
  });
});

describe("judge", () => {
  it("too few samples on either side, or no interval: no verdict, however clear the change", () => {
    const clear = interval(1, 2);
    expect(judge(rule({ interval: clear, baselineCount: 99 }))).toBe("too few samples");
    expect(judge(rule({ interval: clear, currentCount: 99 }))).toBe("too few samples");
    expect(judge(rule({ interval: null }))).toBe("too few samples");
    // Exactly the samples needed is enough.
    expect(judge(rule({ interval: clear, baselineCount: 100, currentCount: 100 }))).toBe("worse");
  });

  it("worse only when the whole interval lies past the tolerance in the bad direction", () => {
    expect(judge(rule({ interval: interval(0.3, 0.6) }))).toBe("worse");
    // The low bound exactly on the tolerance is not past it.
    expect(judge(rule({ interval: interval(0.25, 0.6) }))).toBe("unclear");
    expect(judge(rule({ interval: interval(0.25, 0.25) }))).toBe("same");
    // Straddling zero, wide on both sides: no direction.
    expect(judge(rule({ interval: interval(-0.5, 0.5) }))).toBe("unclear");
    expect(judge(rule({ interval: interval(0.1, 0.6) }))).toBe("unclear");
  });

  it("better only when the whole interval lies past the tolerance in the good direction", () => {
    expect(judge(rule({ interval: interval(-0.6, -0.3) }))).toBe("better");
    expect(judge(rule({ interval: interval(-0.6, -0.25) }))).toBe("unclear");
    expect(judge(rule({ interval: interval(-0.25, -0.25) }))).toBe("same");
    expect(judge(rule({ interval: interval(-0.6, -0.1) }))).toBe("unclear");
  });

  it("same when neither bound is past the tolerance, whichever side it is on", () => {
    expect(judge(rule({ interval: interval(-0.2, 0.2) }))).toBe("same");
    expect(judge(rule({ interval: interval(0.05, 0.2) }))).toBe("same");
    expect(judge(rule({ interval: interval(-0.2, -0.05) }))).toBe("same");
  });

  it("for a figure where higher is better, a rise is better and a fall worse", () => {
    expect(judge(rule({ better: "higher", interval: interval(0.3, 0.6) }))).toBe("better");
    expect(judge(rule({ better: "higher", interval: interval(-0.6, -0.3) }))).toBe("worse");
    // Oriented bounds are re-sorted: a rise from +5 % to +50 % is unclear, not better.
    expect(judge(rule({ better: "higher", interval: interval(0.05, 0.5) }))).toBe("unclear");
    expect(judge(rule({ better: "higher", interval: interval(-0.5, -0.05) }))).toBe("unclear");
  });

  it("a relative change under the absolute floor is the same; exactly on the floor is not past it", () => {
    // +50 % of a 2 ms baseline is 1 ms: on the 1 ms floor.
    expect(judge(rule({ interval: interval(0.5, 0.5), baselineValue: 2 }))).toBe("same");
    expect(judge(rule({ interval: interval(0.5, 0.5), baselineValue: 2.5 }))).toBe("worse");
    expect(judge(rule({ interval: interval(-0.5, -0.5), baselineValue: 2 }))).toBe("same");
    expect(judge(rule({ interval: interval(-0.5, -0.5), baselineValue: 2.5 }))).toBe("better");
    // A negative baseline (a change of a signed figure) is scaled by its size.
    expect(judge(rule({ interval: interval(0.5, 0.5), baselineValue: -2.5 }))).toBe("worse");
  });

  it("an absolute interval is compared with the floor as it is, not scaled by the baseline", () => {
    const abs = (low: number, high: number) => interval(low, high, "absolute");
    expect(judge(rule({ interval: abs(2, 3), tolerance: 0.5, floor: 1, baselineValue: 0.1 }))).toBe("worse");
    expect(judge(rule({ interval: abs(2, 3), tolerance: 0.5, floor: 2, baselineValue: 100 }))).toBe("unclear");
    expect(judge(rule({ interval: abs(0.75, 0.75), tolerance: 0.5, floor: 1, baselineValue: 100 }))).toBe("same");
  });
});
