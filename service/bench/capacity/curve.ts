/**
 * A capacity curve: one row per size (p50, p99, CPU per request, memory), printed as a small table
 * with the growth exponents fitted over the sizes — the slope of log(figure) on log(size) by least
 * squares, so 0 is flat, 1 linear, 2 quadratic. A per-request exponent above FLAT is MISSED.
 */
import { performance } from "node:perf_hooks";
import { fixed, table } from "../../src/cli/table.js";
import { percentile } from "../lib/ttft.js";

/** The goal for per-request latency and CPU: no more than this exponent across the sizes. */
export const FLAT = 0.1;

export interface Point {
  size: number;
  p50: number;
  p99: number;
  /** CPU per request in µs (the service, plus the database backends serving it where there are any). */
  cpuUs: number;
  /** Memory at this size in MB (the service's RSS, or what the dimension names in its note). */
  memMb: number;
}

/** Least-squares slope of log(y) on log(x); NaN with fewer than two usable points. */
export function growthExponent(xs: number[], ys: number[]): number {
  const pts = xs.map((x, i) => [Math.log(x), Math.log(Math.max(ys[i], 1e-9))]).filter(([, y]) => Number.isFinite(y));
  if (pts.length < 2) return NaN;
  const mx = pts.reduce((s, [x]) => s + x, 0) / pts.length;
  const my = pts.reduce((s, [, y]) => s + y, 0) / pts.length;
  const sxx = pts.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  const sxy = pts.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  return sxy / sxx;
}

/** Least-squares slope of y on x (MB per item → KB per item is the caller's unit). */
export function linearSlope(xs: number[], ys: number[]): number {
  const mx = xs.reduce((s, x) => s + x, 0) / xs.length;
  const my = ys.reduce((s, y) => s + y, 0) / ys.length;
  const sxx = xs.reduce((s, x) => s + (x - mx) ** 2, 0);
  return xs.reduce((s, x, i) => s + (x - mx) * (ys[i] - my), 0) / sxx;
}

export const sizeLabel = (n: number) =>
  n >= 1e6 ? `${+(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${+(n / 1e3).toFixed(1)}k` : String(n);

/** Sequential calls of `fn`, after `warmup` unmeasured ones; sorted latencies in ms. */
export async function timeEach(count: number, fn: (i: number) => Promise<void>, warmup = 5): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn(-1 - i);
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out.sort((a, b) => a - b);
}

/** p50 and p99 of sorted latencies. */
export const quantiles = (sorted: number[]) => ({ p50: percentile(sorted, 50), p99: percentile(sorted, 99) });

/**
 * Prints one operation's curve and its exponents; returns whether latency stayed flat. `memNote`
 * says what the memory column measures; `noGoal`, why a curve whose work grows with the size by
 * design has no verdict.
 */
export function printCurve(title: string, unit: string, points: Point[], memNote: string, noGoal?: string): boolean {
  console.log(`  ${title}`);
  const rows = points.map((p) => [
    sizeLabel(p.size),
    fixed(p.p50, 2),
    fixed(p.p99, 2),
    fixed(p.cpuUs, 0),
    fixed(p.memMb, 1),
  ]);
  for (const line of table([unit, "p50 ms", "p99 ms", "CPU µs/req", "memory MB"], rows).split("\n"))
    console.log(`    ${line}`);
  const xs = points.map((p) => p.size);
  const e50 = growthExponent(
    xs,
    points.map((p) => p.p50),
  );
  const e99 = growthExponent(
    xs,
    points.map((p) => p.p99),
  );
  const eCpu = growthExponent(
    xs,
    points.map((p) => p.cpuUs),
  );
  const memSlope =
    linearSlope(
      xs,
      points.map((p) => p.memMb),
    ) * 1024;
  const flat = e50 <= FLAT && e99 <= FLAT;
  console.log(
    `    growth exponent: p50 ${fixed(e50, 2)}, p99 ${fixed(e99, 2)}, CPU ${fixed(eCpu, 2)} ${noGoal ? `(no goal: ${noGoal})` : `(goal ≤ ${FLAT}) ${flat ? "ok" : "MISSED"}`}; memory ${fixed(memSlope, 3)} KB per ${unit.replace(/s$/, "")} (${memNote})`,
  );
  return flat;
}
