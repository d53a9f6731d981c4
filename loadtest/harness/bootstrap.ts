/**
 * Percentile-bootstrap confidence interval of how much a statistic (a quantile, a share) changed
 * between two independent samples: both are resampled with replacement, the statistic's change is
 * taken on each pair of resamples, and the interval is the middle `confidence` of those changes.
 * Values that are not independent of each other (the inter-token gaps of one stream) are resampled
 * as clusters: a stream is drawn with all its gaps, so their correlation widens the interval as it
 * should instead of passing for precision.
 *
 * Written here: npm has no well-kept bootstrap-interval package (simple-statistics offers resampling
 * and a permutation test of means, not an interval of a quantile's change, nor clusters), and the
 * method is the lines below. The random numbers come from pure-rand's seeded xoroshiro128+, so the
 * same two samples always give the same interval — and the same verdict in CI.
 */
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";

/** A change and its interval; `scale` says whether they are relative (0.3 = +30 %) or absolute. */
export interface Interval {
  estimate: number;
  low: number;
  high: number;
  confidence: number;
  scale: "relative" | "absolute";
}

export interface BootstrapOptions {
  /** "relative": stat(current) / stat(baseline) - 1; "absolute": stat(current) - stat(baseline). */
  scale: "relative" | "absolute";
  resamples?: number;
  confidence?: number;
  seed?: number;
}

export const DEFAULT_RESAMPLES = 2000;
export const DEFAULT_CONFIDENCE = 0.95;
export const DEFAULT_SEED = 42;

/** What is compared: a quantile (0..1, nearest rank, as stats.ts's percentile) or the mean (a share of 0/1 values). */
export type Statistic = { quantile: number } | "mean";

/** Every value of a sample, sorted, with the cluster each belongs to. */
interface Prepared {
  values: Float64Array;
  cluster: Uint32Array;
  /** Values per cluster. */
  sizes: Uint32Array;
}

function prepare(clusters: readonly (readonly number[])[]): Prepared {
  const flat = clusters.flatMap((c, i) => c.map((v) => [v, i] as const)).sort((a, b) => a[0] - b[0]);
  return {
    values: Float64Array.from(flat, ([v]) => v),
    cluster: Uint32Array.from(flat, ([, i]) => i),
    sizes: Uint32Array.from(clusters, (c) => c.length),
  };
}

/** The statistic of the sample with each cluster taken `weights[c]` times (the sorted values stay sorted). */
export function statisticOf(stat: Statistic, s: Prepared, weights: Uint32Array): number {
  let n = 0;
  for (let c = 0; c < weights.length; c++) n += weights[c] * s.sizes[c];
  if (n === 0) return NaN;
  if (stat === "mean") {
    let sum = 0;
    for (let i = 0; i < s.values.length; i++) sum += s.values[i] * weights[s.cluster[i]];
    return sum / n;
  }
  const rank = Math.min(n, Math.max(1, Math.ceil(stat.quantile * n)));
  let seen = 0;
  for (let i = 0; i < s.values.length; i++) {
    seen += weights[s.cluster[i]];
    if (seen >= rank) return s.values[i];
  }
  return s.values[s.values.length - 1];
}

const TWO_32 = 2 ** 32;

/**
 * A resample with replacement as a count per cluster. The index is the generator's 32 bits scaled
 * to the count (a bias under k / 2³², nothing next to the interval's width): pure-rand's exact
 * uniformInt costs a rejection loop per draw, and a gate draws millions.
 */
function resample(weights: Uint32Array, rng: ReturnType<typeof xoroshiro128plus>): Uint32Array {
  const k = weights.length;
  weights.fill(0);
  for (let i = 0; i < k; i++) weights[Math.floor(((rng.next() >>> 0) / TWO_32) * k)]++;
  return weights;
}

const change = (scale: BootstrapOptions["scale"], base: number, cur: number) =>
  scale === "relative" ? cur / base - 1 : cur - base;

/** The value at rank `q` (0..1) of sorted changes, nearest rank. */
const rankOf = (changes: Float64Array, q: number) =>
  changes[Math.min(changes.length - 1, Math.max(0, Math.ceil(q * changes.length) - 1))];

/**
 * The interval of the statistic's change, current against baseline, each sample given as clusters
 * of values; null when either has no value or, on the relative scale, the baseline's statistic is 0.
 */
export function bootstrapClusteredChange(
  baseline: readonly (readonly number[])[],
  current: readonly (readonly number[])[],
  statistic: Statistic,
  opts: BootstrapOptions,
): Interval | null {
  const [base, cur] = [prepare(baseline.filter((c) => c.length)), prepare(current.filter((c) => c.length))];
  if (base.values.length === 0 || cur.values.length === 0) return null;
  const [wBase, wCur] = [new Uint32Array(base.sizes.length), new Uint32Array(cur.sizes.length)];
  const observed = [statisticOf(statistic, base, wBase.fill(1)), statisticOf(statistic, cur, wCur.fill(1))];
  if (opts.scale === "relative" && observed[0] === 0) return null;
  const resamples = opts.resamples ?? DEFAULT_RESAMPLES;
  const confidence = opts.confidence ?? DEFAULT_CONFIDENCE;
  const rng = xoroshiro128plus(opts.seed ?? DEFAULT_SEED);
  const changes: number[] = [];
  for (let i = 0; i < resamples; i++) {
    const b = statisticOf(statistic, base, resample(wBase, rng));
    const c = statisticOf(statistic, cur, resample(wCur, rng));
    // A resampled baseline whose statistic is 0 has no ratio: that resample is left out.
    if (opts.scale === "absolute" || b !== 0) changes.push(change(opts.scale, b, c));
  }
  const all = Float64Array.from(changes).sort();
  const tail = (1 - confidence) / 2;
  return {
    estimate: change(opts.scale, observed[0], observed[1]),
    low: rankOf(all, tail),
    high: rankOf(all, 1 - tail),
    confidence,
    scale: opts.scale,
  };
}

/** The same for independent values: each its own cluster. */
export function bootstrapChange(
  baseline: readonly number[],
  current: readonly number[],
  statistic: Statistic,
  opts: BootstrapOptions,
): Interval | null {
  return bootstrapClusteredChange(
    baseline.map((v) => [v]),
    current.map((v) => [v]),
    statistic,
    opts,
  );
}
