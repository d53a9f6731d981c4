/**
 * Percentile-bootstrap confidence interval of how much a statistic (a quantile, a share) changed
 * between two independent samples: both are resampled with replacement, the statistic's change is
 * taken on each pair of resamples, and the interval is the middle `confidence` of those changes.
 *
 * Written here: npm has no well-kept bootstrap-interval package (simple-statistics offers resampling
 * and a permutation test of means, not an interval of a quantile's change), and the method is the
 * twenty lines below. The random numbers come from pure-rand's seeded xoroshiro128+, so the same
 * two samples always give the same interval — and the same verdict in CI.
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

const TWO_32 = 2 ** 32;

const sorted = (values: readonly number[]) => Float64Array.from(values).sort();

/**
 * A resample with replacement as counts over the sorted sample: count[i] copies of sorted[i]. The
 * resample stays sorted without a sort (sorting each resample cost ten times the drawing). The
 * index is the generator's 32 bits scaled to the length (a bias under n / 2³², nothing next to the
 * interval's width): pure-rand's exact uniformInt costs a rejection loop per draw.
 */
function resample(n: number, counts: Uint32Array, rng: ReturnType<typeof xoroshiro128plus>): Uint32Array {
  counts.fill(0);
  for (let i = 0; i < n; i++) counts[Math.floor(((rng.next() >>> 0) / TWO_32) * n)]++;
  return counts;
}

/** The statistic of the sample `sorted` taken `counts[i]` times each. */
export function statisticOf(stat: Statistic, sorted: Float64Array, counts: Uint32Array): number {
  const n = counts.reduce((a, b) => a + b, 0);
  if (n === 0) return NaN;
  if (stat === "mean") return sorted.reduce((a, v, i) => a + v * counts[i], 0) / n;
  const rank = Math.min(n, Math.max(1, Math.ceil(stat.quantile * n)));
  let seen = 0;
  for (let i = 0; i < sorted.length; i++) {
    seen += counts[i];
    if (seen >= rank) return sorted[i];
  }
  return sorted[sorted.length - 1];
}

function change(scale: BootstrapOptions["scale"], base: number, cur: number): number {
  return scale === "relative" ? cur / base - 1 : cur - base;
}

/** The value at rank `q` (0..1) of sorted changes, nearest rank. */
const rankOf = (changes: Float64Array, q: number) =>
  changes[Math.min(changes.length - 1, Math.max(0, Math.ceil(q * changes.length) - 1))];

/**
 * The interval of the statistic's change, current against baseline; null when either sample is
 * empty or, on the relative scale, the baseline's statistic is 0 (no ratio to take).
 */
export function bootstrapChange(
  baseline: readonly number[],
  current: readonly number[],
  statistic: Statistic,
  opts: BootstrapOptions,
): Interval | null {
  if (baseline.length === 0 || current.length === 0) return null;
  const [base, cur] = [sorted(baseline), sorted(current)];
  const [countsBase, countsCur] = [new Uint32Array(base.length), new Uint32Array(cur.length)];
  const observed = [statisticOf(statistic, base, countsBase.fill(1)), statisticOf(statistic, cur, countsCur.fill(1))];
  if (opts.scale === "relative" && observed[0] === 0) return null;
  const resamples = opts.resamples ?? DEFAULT_RESAMPLES;
  const confidence = opts.confidence ?? DEFAULT_CONFIDENCE;
  const rng = xoroshiro128plus(opts.seed ?? DEFAULT_SEED);
  const changes: number[] = [];
  for (let i = 0; i < resamples; i++) {
    const b = statisticOf(statistic, base, resample(base.length, countsBase, rng));
    const c = statisticOf(statistic, cur, resample(cur.length, countsCur, rng));
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
