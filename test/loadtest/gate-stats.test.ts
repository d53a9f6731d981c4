/**
 * The gate's pure statistics on synthetic samples with known differences: the bootstrap interval
 * of a quantile's change, the verdict rule (none, small, large, too few), and the sweep's knee.
 */
import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import { describe, expect, it } from "vitest";
import { bootstrapChange, type Interval } from "../../loadtest/harness/bootstrap.js";
import { findKnee, maxSloRate } from "../../loadtest/harness/knee.js";
import { percentile } from "../../loadtest/harness/stats.js";
import { judge, minSamples, type RuleInput } from "../../loadtest/harness/verdict-rule.js";

/** `n` latencies around `median` ms with a right tail (log-normal, σ 0.4), from `seed`. */
function latencies(n: number, median: number, seed: number): number[] {
  const rng = xoroshiro128plus(seed);
  return Array.from({ length: n }, () => {
    // Box–Muller: two uniforms to one standard normal.
    const [u, v] = [1 - uniformFloat64(rng), uniformFloat64(rng)];
    return median * Math.exp(0.4 * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v));
  });
}

const p = (q: number) => ({ quantile: q });

function verdict(base: number[], cur: number[], q: number, rule: Partial<RuleInput> = {}) {
  const interval = bootstrapChange(base, cur, p(q), { scale: "relative" });
  return judge({
    interval,
    baselineCount: base.length,
    currentCount: cur.length,
    needed: minSamples(q),
    better: "lower",
    tolerance: 0.1,
    floor: 1,
    baselineValue: percentile(
      [...base].sort((a, b) => a - b),
      q * 100,
    )!,
    ...rule,
  });
}

describe("bootstrap interval of a quantile's change", () => {
  it("brackets the true change and is reproducible with its seed", () => {
    const base = latencies(400, 50, 1);
    const slower = latencies(400, 50, 2).map((v) => v * 1.3);
    const a = bootstrapChange(base, slower, p(0.5), { scale: "relative" })!;
    expect(a.low).toBeLessThan(0.3);
    expect(a.high).toBeGreaterThan(0.3);
    expect(a.low).toBeGreaterThan(0.15);
    expect(a.high).toBeLessThan(0.45);
    expect(bootstrapChange(base, slower, p(0.5), { scale: "relative" })).toEqual(a);
    const other = bootstrapChange(base, slower, p(0.5), { scale: "relative", seed: 7 })!;
    expect(other.estimate).toBe(a.estimate);
    expect([other.low, other.high]).not.toEqual([a.low, a.high]);
  });

  it("is narrower with more samples and wider for a higher quantile", () => {
    const width = (i: Interval | null) => i!.high - i!.low;
    const small = bootstrapChange(latencies(100, 50, 3), latencies(100, 50, 4), p(0.5), { scale: "relative" });
    const large = bootstrapChange(latencies(1600, 50, 3), latencies(1600, 50, 4), p(0.5), { scale: "relative" });
    const tail = bootstrapChange(latencies(1600, 50, 3), latencies(1600, 50, 4), p(0.99), { scale: "relative" });
    expect(width(large)).toBeLessThan(width(small) / 2);
    expect(width(tail)).toBeGreaterThan(width(large));
  });

  it("takes absolute changes of a share, and has no ratio from a zero baseline", () => {
    const mean = "mean" as const;
    const none = Array<number>(100).fill(0);
    const some = [...Array<number>(90).fill(0), ...Array<number>(10).fill(1)];
    const i = bootstrapChange(none, some, mean, { scale: "absolute" })!;
    expect(i.estimate).toBeCloseTo(0.1, 10);
    expect(i.low).toBeGreaterThan(0);
    expect(bootstrapChange(none, some, mean, { scale: "relative" })).toBeNull();
    expect(bootstrapChange([], some, mean, { scale: "absolute" })).toBeNull();
  });
});

describe("the verdict rule", () => {
  const base = latencies(1500, 50, 11);
  it("no difference: same, at the median and at p95", () => {
    expect(verdict(base, latencies(1500, 50, 12), 0.5)).toBe("same");
    expect(verdict(base, latencies(1500, 50, 12), 0.95)).toBe("same");
  });

  it("a small difference (+3 %, inside the 10 % tolerance) is not worse", () => {
    const cur = latencies(1500, 50, 13).map((v) => v * 1.03);
    expect(verdict(base, cur, 0.5)).toBe("same");
    expect(verdict(base, cur, 0.95)).not.toBe("worse");
  });

  it("a large difference (+50 %) is worse; the same change the other way is better", () => {
    const cur = latencies(400, 50, 14).map((v) => v * 1.5);
    const base = latencies(400, 50, 11);
    expect(verdict(base, cur, 0.5)).toBe("worse");
    expect(verdict(base, cur, 0.95)).toBe("worse");
    expect(verdict(cur, base, 0.5)).toBe("better");
    // For a figure where higher is better (tokens per second), the same rise is better.
    expect(verdict(base, cur, 0.5, { better: "higher" })).toBe("better");
  });

  it("between the tolerance and a clear verdict: unclear", () => {
    // +12 % on 100 samples: the interval straddles the 10 % tolerance.
    const few = latencies(100, 50, 15);
    expect(
      verdict(
        few,
        latencies(100, 50, 16).map((v) => v * 1.12),
        0.5,
      ),
    ).toBe("unclear");
  });

  it("too few samples: no verdict, however large the change", () => {
    const cur = latencies(60, 50, 17).map((v) => v * 3);
    expect(minSamples(0.5)).toBe(20);
    expect(minSamples(0.95)).toBe(100);
    expect(minSamples(0.99)).toBe(500);
    expect(verdict(latencies(60, 50, 18), cur, 0.95)).toBe("too few samples");
    expect(verdict(latencies(60, 50, 18), cur, 0.5)).toBe("worse");
    expect(
      verdict(
        latencies(19, 50, 18),
        latencies(19, 50, 19).map((v) => v * 3),
        0.5,
      ),
    ).toBe("too few samples");
  });

  it("a change under the absolute floor is the same, however large relatively", () => {
    const tiny = latencies(400, 0.4, 20);
    const doubled = latencies(400, 0.4, 21).map((v) => v * 2);
    expect(verdict(tiny, doubled, 0.5)).toBe("same");
    expect(verdict(tiny, doubled, 0.5, { floor: 0.01 })).toBe("worse");
  });
});

describe("the sweep's knee", () => {
  const curve = (rates: number[], latency: (r: number) => number, slo = 1e9) =>
    rates.map((rate) => ({ rate, latencyMs: latency(rate), sloMet: latency(rate) <= slo }));
  const rates = [10, 20, 30, 40, 50, 60, 70, 80];

  it("finds the rate where latency turns upward (capacity 50 req/s)", () => {
    const points = curve(rates, (r) => (r <= 50 ? 40 + r / 10 : 40 + (r - 50) * 20), 100);
    expect(findKnee(points)).toBe(50);
    expect(maxSloRate(points)).toBe(50);
  });

  it("a flat curve has no knee; nor have two points or none measured", () => {
    expect(findKnee(curve(rates, (r) => 40 + r / 10))).toBeNull();
    expect(findKnee(curve([10, 20], (r) => r * 100))).toBeNull();
    expect(findKnee(rates.map((rate) => ({ rate, latencyMs: null, sloMet: false })))).toBeNull();
  });

  it("order does not matter; no point met the SLO: no sustainable rate", () => {
    const points = curve([...rates].reverse(), (r) => (r <= 30 ? 40 : 40 + (r - 30) * 30), 1);
    expect(findKnee(points)).toBe(30);
    expect(maxSloRate(points)).toBeNull();
  });
});
