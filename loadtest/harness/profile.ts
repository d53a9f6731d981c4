/**
 * Load profiles as GuideLLM names them: `synchronous` (one stream at a time), `throughput` (as
 * many streams in flight as --concurrency allows), `constant` and `poisson` (arrivals at each of
 * --rates, evenly spaced or as a Poisson process), and `sweep`: synchronous, then throughput (the
 * most the target sustains), then --sweep-points rates evenly spaced from the synchronous rate up
 * to the throughput rate. What each point made of the target, judged against the stack's SLO,
 * gives the knee and the highest rate that met every SLO (knee.ts).
 */
import type { Capacity, PointKind, SweepPoint } from "./recorder.js";
import { findKnee, maxSloRate, type CurvePoint } from "./knee.js";

export const PROFILES = ["sweep", "synchronous", "throughput", "constant", "poisson"] as const;
export type Profile = (typeof PROFILES)[number];

/** A point to run: closed-loop at a concurrency, or open-loop at a rate. */
export type PlannedPoint = { kind: "synchronous" | "throughput"; concurrency: number } | { kind: "rate"; rate: number };

/** The points known before the run (a sweep's rates come from its first two points). */
export function initialPoints(profile: Profile, rates: readonly number[], concurrency: number): PlannedPoint[] {
  switch (profile) {
    case "synchronous":
      return [{ kind: "synchronous", concurrency: 1 }];
    case "throughput":
      return [{ kind: "throughput", concurrency }];
    case "constant":
    case "poisson":
      return rates.map((rate) => ({ kind: "rate", rate }));
    case "sweep":
      return [
        { kind: "synchronous", concurrency: 1 },
        { kind: "throughput", concurrency },
      ];
  }
}

/** `count` rates evenly spaced above `low` up to `high` (the last is `high`), rounded to 0.01 req/s. */
export function ratesBetween(low: number, high: number, count: number): number[] {
  if (!(high > low) || count < 1) return [];
  const step = (high - low) / count;
  return Array.from({ length: count }, (_, i) => Math.round((low + step * (i + 1)) * 100) / 100);
}

const order: Record<PointKind, number> = { synchronous: 0, rate: 1, throughput: 2 };

/**
 * The curve the knee is found on: the synchronous point, the rates, and the throughput point last
 * (it stands for a load beyond every rate, so it is placed at least at the highest rate).
 */
export function capacityCurve(points: readonly SweepPoint[]): CurvePoint[] {
  const sorted = [...points].sort(
    (a, b) => order[a.kind ?? "rate"] - order[b.kind ?? "rate"] || (a.kind === "rate" ? a.rate - b.rate : 0),
  );
  let highest = 0;
  return sorted.map((p) => {
    const rate = p.kind === "throughput" ? Math.max(p.rate, highest) : p.rate;
    highest = Math.max(highest, rate);
    return { rate, latencyMs: p.figures.ttft_p95_ms ?? null, sloMet: p.slo?.met ?? false };
  });
}

export function capacityOf(points: readonly SweepPoint[]): Capacity {
  const curve = capacityCurve(points);
  return {
    kneeRate: findKnee(curve),
    // At each point's own rate: the throughput point's achieved rate, not its place on the curve.
    maxSloRate: maxSloRate(points.map((p) => ({ rate: p.rate, latencyMs: null, sloMet: p.slo?.met ?? false }))),
    throughputRate: points.find((p) => p.kind === "throughput")?.rate ?? null,
  };
}
