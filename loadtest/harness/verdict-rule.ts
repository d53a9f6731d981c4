/**
 * The gate's rule for one metric: too few samples give no verdict; otherwise the metric is worse
 * only when its whole confidence interval lies beyond the tolerance in the bad direction (and, in
 * absolute terms, beyond the metric's noise floor). Statistically clear is not enough: a 2 %
 * change measured precisely is not a regression; practically large is not enough either: a p95
 * that moved 30 % on 48 samples may be noise.
 */
import type { Interval } from "./bootstrap.js";

export type GateVerdict = "worse" | "better" | "same" | "unclear" | "too few samples";

/** Samples needed beyond a quantile for its interval to mean anything: p95 needs 100, p99 500. */
export const TAIL_SAMPLES = 5;
/** The fewest samples any statistic is judged on. */
export const MIN_SAMPLES = 20;

/** The smallest sample that can judge the quantile `q` (0..1): at least TAIL_SAMPLES lie beyond it. */
export function minSamples(q: number): number {
  return Math.max(MIN_SAMPLES, Math.ceil(TAIL_SAMPLES / (1 - q) - 1e-9));
}

export interface RuleInput {
  interval: Interval | null;
  baselineCount: number;
  currentCount: number;
  /** Samples each side needs (see minSamples). */
  needed: number;
  /** "lower": a larger value is worse. */
  better: "lower" | "higher";
  /** The practical threshold, on the interval's scale (0.1 = 10 % for a relative interval). */
  tolerance: number;
  /** Absolute changes below this are noise (ms for latencies); applied through `baselineValue`. */
  floor: number;
  /** The baseline's statistic, to turn a relative bound into an absolute one. */
  baselineValue: number;
}

/** A bound of the interval as an absolute change. */
const absolute = (input: RuleInput, bound: number) =>
  input.interval!.scale === "relative" ? bound * Math.abs(input.baselineValue) : bound;

export function judge(input: RuleInput): GateVerdict {
  if (input.baselineCount < input.needed || input.currentCount < input.needed || !input.interval)
    return "too few samples";
  // Oriented so that a positive change is the bad direction.
  const sign = input.better === "lower" ? 1 : -1;
  const [low, high] = [input.interval.low, input.interval.high].map((v) => v * sign).sort((a, b) => a - b);
  // Beyond the practical threshold: past the tolerance and past the noise floor.
  const beyond = (bound: number) => Math.abs(bound) > input.tolerance && Math.abs(absolute(input, bound)) > input.floor;
  if (low > 0 && beyond(low)) return "worse";
  if (high < 0 && beyond(high)) return "better";
  if (!beyond(low) && !beyond(high)) return "same";
  return "unclear";
}
