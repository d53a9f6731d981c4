/**
 * The bootstrap interval of a statistic's change: the statistic of a weighted sample computed by
 * hand, intervals whose every resample gives the same change (so they are exact), the defaults,
 * the seed, the zero-baseline resamples, and clusters.
 */
import { describe, expect, it } from "vitest";
import {
  bootstrapChange,
  bootstrapClusteredChange,
  DEFAULT_CONFIDENCE,
  DEFAULT_RESAMPLES,
  DEFAULT_SEED,
  statisticOf,
} from "../../../../loadtest/harness/bootstrap.js";

/** A prepared sample of single-value clusters (values sorted). */
const single = (values: number[]) => ({
  values: Float64Array.from(values),
  cluster: Uint32Array.from(values, (_, i) => i),
  sizes: Uint32Array.from(values, () => 1),
});
const ones = (n: number) => new Uint32Array(n).fill(1);
const q = (quantile: number) => ({ quantile });

describe("statisticOf", () => {
  const four = single([1, 2, 3, 4]);

  it("a quantile is the value at nearest rank ceil(q × n), clamped to the sample", () => {
    expect(statisticOf(q(0.5), four, ones(4))).toBe(2);
    expect(statisticOf(q(0.51), four, ones(4))).toBe(3);
    expect(statisticOf(q(0.75), four, ones(4))).toBe(3);
    expect(statisticOf(q(0.76), four, ones(4))).toBe(4);
    expect(statisticOf(q(0), four, ones(4))).toBe(1);
    expect(statisticOf(q(1), four, ones(4))).toBe(4);
    expect(statisticOf(q(2), four, ones(4))).toBe(4);
  });

  it("the mean weighs each value by its cluster's count", () => {
    expect(statisticOf("mean", four, ones(4))).toBe(2.5);
    expect(statisticOf("mean", four, Uint32Array.from([0, 0, 0, 2]))).toBe(4);
    expect(statisticOf("mean", four, Uint32Array.from([3, 0, 0, 1]))).toBe(1.75);
  });

  it("a quantile counts a value as many times as its cluster was drawn", () => {
    expect(statisticOf(q(0.5), four, Uint32Array.from([0, 0, 0, 2]))).toBe(4);
    expect(statisticOf(q(0.5), four, Uint32Array.from([3, 0, 0, 1]))).toBe(1);
    expect(statisticOf(q(0.8), four, Uint32Array.from([3, 0, 0, 1]))).toBe(4);
  });

  it("clusters: a cluster's every value counts its weight, and sizes give n", () => {
    // Values 1, 2 in cluster 0 and 3 in cluster 1; cluster 1 drawn twice: 1, 2, 3, 3.
    const s = {
      values: Float64Array.from([1, 2, 3]),
      cluster: Uint32Array.from([0, 0, 1]),
      sizes: Uint32Array.from([2, 1]),
    };
    expect(statisticOf("mean", s, Uint32Array.from([1, 2]))).toBe(2.25);
    expect(statisticOf(q(0.5), s, Uint32Array.from([1, 2]))).toBe(2);
    expect(statisticOf(q(0.75), s, Uint32Array.from([1, 2]))).toBe(3);
    expect(statisticOf(q(0.5), s, Uint32Array.from([0, 2]))).toBe(3);
  });

  it("no value drawn: NaN", () => {
    expect(statisticOf("mean", four, new Uint32Array(4))).toBeNaN();
    expect(statisticOf(q(0.5), four, new Uint32Array(4))).toBeNaN();
  });
});

describe("bootstrapChange", () => {
  it("constant samples: every resample gives the same change, relative or absolute", () => {
    const [ten, fifteen] = [Array<number>(30).fill(10), Array<number>(40).fill(15)];
    expect(bootstrapChange(ten, fifteen, q(0.5), { scale: "relative" })).toEqual({
      estimate: 0.5,
      low: 0.5,
      high: 0.5,
      confidence: DEFAULT_CONFIDENCE,
      scale: "relative",
    });
    expect(bootstrapChange(ten, fifteen, "mean", { scale: "absolute" })).toEqual({
      estimate: 5,
      low: 5,
      high: 5,
      confidence: DEFAULT_CONFIDENCE,
      scale: "absolute",
    });
    expect(bootstrapChange(fifteen, ten, "mean", { scale: "absolute" })!.estimate).toBe(-5);
  });

  it("sorts each sample before taking a quantile", () => {
    expect(bootstrapChange([3, 1, 2], [30, 10, 20], q(0.5), { scale: "absolute" })!.estimate).toBe(18);
    expect(bootstrapChange([3, 1, 2], [30, 10, 20], q(1), { scale: "absolute" })!.estimate).toBe(27);
  });

  it("the interval is ordered, holds the estimate, and widens with the confidence", () => {
    const base = Array.from({ length: 50 }, (_, i) => 10 + (i % 10));
    const cur = Array.from({ length: 50 }, (_, i) => 12 + (i % 10));
    const i95 = bootstrapChange(base, cur, "mean", { scale: "absolute" })!;
    const i50 = bootstrapChange(base, cur, "mean", { scale: "absolute", confidence: 0.5 })!;
    expect(i95.estimate).toBeCloseTo(2, 10);
    expect(i95.low).toBeLessThan(i95.estimate);
    expect(i95.high).toBeGreaterThan(i95.estimate);
    expect(i50.confidence).toBe(0.5);
    expect(i50.low).toBeGreaterThan(i95.low);
    expect(i50.high).toBeLessThan(i95.high);
    expect(i50.low).toBeLessThan(i50.high);
  });

  it("confidence 1 spans every resampled change: the extremes of the possible changes", () => {
    // The baseline's mean over two values is 0, 5 or 10; the current's is always 0.
    const all = bootstrapChange([0, 10], [0], "mean", { scale: "absolute", confidence: 1 })!;
    expect([all.low, all.high]).toEqual([-10, 0]);
    // A resample draws as many values as the sample has (two): its mean is never a third of 10.
    const mid = bootstrapChange([0, 10], [0], "mean", { scale: "absolute", confidence: 0.5 })!;
    expect([-10, -5, 0]).toContain(mid.low);
    expect([-10, -5, 0]).toContain(mid.high);
  });

  it("confidence 1 over two resamples: the lower bound is the smaller change, the upper the larger", () => {
    const base = Array.from({ length: 40 }, (_, i) => i);
    const cur = Array.from({ length: 40 }, (_, i) => i * 1.2);
    const two = bootstrapChange(base, cur, q(0.5), { scale: "relative", resamples: 2, confidence: 1 })!;
    expect(two.low).toBeLessThan(two.high);
  });

  it("the seed and the resample count: defaults, and a different seed gives different bounds", () => {
    expect([DEFAULT_RESAMPLES, DEFAULT_CONFIDENCE, DEFAULT_SEED]).toEqual([2000, 0.95, 42]);
    const base = Array.from({ length: 40 }, (_, i) => i);
    const cur = Array.from({ length: 40 }, (_, i) => i * 1.2);
    const a = bootstrapChange(base, cur, q(0.5), { scale: "relative" })!;
    expect(bootstrapChange(base, cur, q(0.5), { scale: "relative", seed: 42, resamples: 2000 })).toEqual(a);
    const other = bootstrapChange(base, cur, q(0.5), { scale: "relative", seed: 7 })!;
    expect(other.estimate).toBe(a.estimate);
    expect([other.low, other.high]).not.toEqual([a.low, a.high]);
    // One resample: both bounds are its change.
    const once = bootstrapChange(base, cur, q(0.5), { scale: "relative", resamples: 1 })!;
    expect(once.low).toBe(once.high);
  });

  it("a resampled baseline of 0 has no ratio and is left out; on the absolute scale it counts", () => {
    // A median of 0 in about a quarter of the baseline's resamples.
    const rel = bootstrapChange([0, 10, 10], [20, 20, 20], q(0.5), { scale: "relative", confidence: 1 })!;
    expect(rel.estimate).toBe(1);
    expect(rel.high).toBe(1);
    expect(rel.low).toBe(1);
    const abs = bootstrapChange([0, 10, 10], [20, 20, 20], q(0.5), { scale: "absolute", confidence: 1 })!;
    expect([abs.low, abs.high]).toEqual([10, 20]);
  });

  it("no value on either side, or a relative change from a baseline of 0: no interval", () => {
    expect(bootstrapChange([], [1, 2], "mean", { scale: "absolute" })).toBeNull();
    expect(bootstrapChange([1, 2], [], "mean", { scale: "absolute" })).toBeNull();
    expect(bootstrapChange([0, 0], [1, 2], "mean", { scale: "relative" })).toBeNull();
    expect(bootstrapChange([0, 0], [1, 2], "mean", { scale: "absolute" })!.estimate).toBe(1.5);
  });
});

describe("bootstrapClusteredChange", () => {
  it("an empty cluster is not a cluster: the interval is that of the others", () => {
    const base = [[1, 2, 3], [4, 5], [6]];
    const cur = [[2, 3], [5, 6, 7], [8]];
    const plain = bootstrapClusteredChange(base, cur, "mean", { scale: "absolute" });
    expect(bootstrapClusteredChange([[], ...base, []], [...cur, []], "mean", { scale: "absolute" })).toEqual(plain);
    expect(bootstrapClusteredChange([[], []], cur, "mean", { scale: "absolute" })).toBeNull();
  });

  it("correlated values drawn as clusters give a wider interval than the same values drawn one by one", () => {
    // Ten streams, each of ten equal gaps: ten independent figures, not a hundred.
    const streams = (shift: number) => Array.from({ length: 10 }, (_, s) => Array<number>(10).fill(10 + s + shift));
    const [base, cur] = [streams(0), streams(1)];
    const clustered = bootstrapClusteredChange(base, cur, "mean", { scale: "absolute" })!;
    const flat = bootstrapChange(base.flat(), cur.flat(), "mean", { scale: "absolute" })!;
    expect(clustered.estimate).toBeCloseTo(1, 10);
    expect(flat.estimate).toBeCloseTo(1, 10);
    expect(clustered.high - clustered.low).toBeGreaterThan(2 * (flat.high - flat.low));
  });
});
