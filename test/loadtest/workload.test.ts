/**
 * Realistic workloads: sizes in tokens (GuideLLM's syntax) that the service counts as asked,
 * Poisson arrivals with the right mean and spread, and a sweep whose achieved rate never
 * exceeds the offered one.
 */
import { describe, expect, it } from "vitest";
import { arrivalOffsets } from "../../loadtest/harness/pool.js";
import { sweepPoint } from "../../loadtest/harness/scenarios/rate-sweep.js";
import type { StreamOutcome } from "../../loadtest/harness/stream-client.js";
import { parseWorkload, promptText } from "../../loadtest/harness/workload.js";
import { tokenCounter } from "../../service/src/domain/agents/tokens.js";

/** A seeded generator (mulberry32): the statistical checks below see the same draws every run. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const gapsOf = (offsets: number[]) => offsets.slice(1).map((t, i) => t - offsets[i]);
const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
const sd = (v: number[]) => Math.sqrt(mean(v.map((x) => (x - mean(v)) ** 2)));

describe("workload sizes in tokens", () => {
  it("parses GuideLLM's prompt_tokens=…,output_tokens=… and refuses anything else", () => {
    expect(parseWorkload("prompt_tokens=256,output_tokens=128")).toEqual({ promptTokens: 256, outputTokens: 128 });
    expect(parseWorkload("output_tokens=64")).toEqual({ outputTokens: 64 });
    expect(() => parseWorkload("prompt_tokens=lots")).toThrow(/prompt_tokens must be a whole number/);
    expect(() => parseWorkload("samples=3")).toThrow(/knows prompt_tokens and output_tokens \(got 'samples'\)/);
  });

  it("a prompt of N tokens counts N prompt tokens, as the service counts usage", async () => {
    const tokens = await tokenCounter();
    for (const n of [8, 64, 256, 2048]) expect(await tokens.prompt([{ role: "user", content: promptText(n) }])).toBe(n);
  });
});

describe("arrivals", () => {
  it("constant arrivals are evenly spaced at 1/rate", () => {
    expect(arrivalOffsets(5, 4, "constant")).toEqual([0, 250, 500, 750, 1000]);
  });

  it("Poisson arrivals: exponential gaps, mean 1/rate and standard deviation equal to it", () => {
    const gaps = gapsOf(arrivalOffsets(20_001, 50, "poisson", seeded(29)));
    // 20,000 exponential gaps: the sample mean's standard error is 1/√20000 ≈ 0.7 % of the mean.
    expect(mean(gaps)).toBeGreaterThan(20 * 0.97);
    expect(mean(gaps)).toBeLessThan(20 * 1.03);
    expect(sd(gaps) / mean(gaps)).toBeGreaterThan(0.95);
    expect(sd(gaps) / mean(gaps)).toBeLessThan(1.05);
    // The share of gaps shorter than the mean is 1 - 1/e for an exponential distribution.
    expect(gaps.filter((g) => g < 20).length / gaps.length).toBeCloseTo(1 - Math.exp(-1), 1);
    expect(gaps.every((g) => g >= 0)).toBe(true);
  });
});

/** A valid stream that started at `start` ms and took `ms`. */
function stream(start: number, ms: number): StreamOutcome {
  return {
    status: 200,
    startedAt: start,
    endedAt: start + ms,
    ended: "end",
    events: [],
    errorBody: undefined,
    ttftMs: ms / 2,
    e2eMs: ms,
    outputTokens: 10,
    interTokenMs: [1],
    longestGapMs: 1,
    lastByteAt: start + ms,
    report: { ok: true, errors: [] } as unknown as StreamOutcome["report"],
  };
}

describe("the rate sweep", () => {
  it("never reports more achieved than offered, however short the streams", () => {
    // The run: 6 streams offered at 2/s, each done in 30 ms, once read as 2.3 req/s.
    const six = Array.from({ length: 6 }, (_, i) => stream(i * 500, 30));
    expect(sweepPoint(2, 6, 6, six).figures.requests_per_s).toBe(2);
    const random = seeded(7);
    for (let trial = 0; trial < 200; trial++) {
      const rate = 0.5 + random() * 50;
      const planned = 1 + Math.floor(random() * 40);
      const offsets = arrivalOffsets(planned, rate, trial % 2 ? "poisson" : "constant", random);
      const outcomes = offsets.map((t) => stream(t, random() * (3000 / rate)));
      expect(sweepPoint(rate, planned, planned, outcomes).figures.requests_per_s!).toBeLessThanOrEqual(rate);
    }
  });

  it("a target slower than the offered rate shows achieved below it", () => {
    const slow = Array.from({ length: 10 }, (_, i) => stream(i * 100, 5000));
    expect(sweepPoint(10, 10, 10, slow).figures.requests_per_s).toBeCloseTo(10 / 5.9, 2);
  });
});
