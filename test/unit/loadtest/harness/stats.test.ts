/** Nearest-rank percentiles and the latency summaries of the load-test reports. */
import { describe, expect, it } from "vitest";
import { percentile, summarize, summaryFigures } from "../../../../loadtest/harness/stats.js";

describe("percentile (nearest rank)", () => {
  const ten = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

  it("is the value at rank ceil(p/100 × n)", () => {
    expect(percentile(ten, 50)).toBe(5);
    expect(percentile(ten, 51)).toBe(6);
    expect(percentile(ten, 90)).toBe(9);
    expect(percentile(ten, 95)).toBe(10);
    expect(percentile(ten, 10)).toBe(1);
    expect(percentile(ten, 11)).toBe(2);
  });

  it("p0 is the smallest and p100 the largest, never outside the samples", () => {
    expect(percentile(ten, 0)).toBe(1);
    expect(percentile(ten, 100)).toBe(10);
    expect(percentile(ten, 150)).toBe(10);
    expect(percentile(ten, -5)).toBe(1);
  });

  it("of one sample is that sample", () => {
    expect(percentile([42], 1)).toBe(42);
    expect(percentile([42], 99)).toBe(42);
  });

  it("is null without samples", () => {
    expect(percentile([], 50)).toBeNull();
  });
});

describe("summarize", () => {
  it("sorts the samples first: percentiles of unsorted samples are those of the sorted ones", () => {
    const s = summarize([9, 1, 10, 3, 7, 2, 8, 5, 4, 6]);
    expect(s).toEqual({ count: 10, min: 1, p50: 5, p90: 9, p95: 10, p99: 10, max: 10, mean: 5.5 });
  });

  it("sorts numerically, not as text", () => {
    const s = summarize([100, 9, 25]);
    expect([s.min, s.p50, s.max]).toEqual([9, 25, 100]);
  });

  it("reports the largest sample as max and the smallest as min", () => {
    const s = summarize([3, 30, 300]);
    expect(s.min).toBe(3);
    expect(s.max).toBe(300);
  });

  it("p99 of a hundred samples is the 99th, not the largest", () => {
    const s = summarize(Array.from({ length: 100 }, (_, i) => 100 - i));
    expect(s).toMatchObject({ p50: 50, p90: 90, p95: 95, p99: 99, max: 100 });
  });

  it("rounds to two decimals", () => {
    const s = summarize([1.234, 1.236, 2.001]);
    expect(s).toEqual({ count: 3, min: 1.23, p50: 1.24, p90: 2, p95: 2, p99: 2, max: 2, mean: 1.49 });
  });

  it("leaves the caller's samples as they were", () => {
    const samples = [3, 1, 2];
    summarize(samples);
    expect(samples).toEqual([3, 1, 2]);
  });

  it("is all null but the count for no samples", () => {
    expect(summarize([])).toEqual({
      count: 0,
      min: null,
      p50: null,
      p90: null,
      p95: null,
      p99: null,
      max: null,
      mean: null,
    });
  });

  it("keeps a zero sample (not taken for missing)", () => {
    expect(summarize([0])).toMatchObject({ min: 0, max: 0, mean: 0, p50: 0 });
  });
});

describe("summaryFigures", () => {
  it("names each figure by prefix, percentile and unit", () => {
    const s = summarize([10, 20, 30, 40]);
    expect(summaryFigures("ttft", s)).toEqual({
      ttft_count: 4,
      ttft_p50_ms: 20,
      ttft_p90_ms: 40,
      ttft_p95_ms: 40,
      ttft_p99_ms: 40,
      ttft_max_ms: 40,
    });
  });

  it("takes another unit, or none for rates", () => {
    const s = summarize([1, 2]);
    expect(Object.keys(summaryFigures("rps", s, ""))).toEqual([
      "rps_count",
      "rps_p50",
      "rps_p90",
      "rps_p95",
      "rps_p99",
      "rps_max",
    ]);
    expect(summaryFigures("t", s, "_s")).toMatchObject({ t_p50_s: 1, t_max_s: 2 });
  });
});
