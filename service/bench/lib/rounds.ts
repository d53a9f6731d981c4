/** One target's measured rounds, and the statistics the chat bench reads off them. */
import type { LoadResult } from "./load.js";

/** One round of load on a target, with the CPU time its server used meanwhile. */
export type Measured = LoadResult & { cpuMicros: number };

export function mean(results: Measured[]) {
  const avg = (f: (r: Measured) => number) => results.reduce((a, r) => a + f(r), 0) / results.length;
  const sum = (f: (r: Measured) => number) => results.reduce((a, r) => a + f(r), 0);
  return {
    rps: avg((r) => r.rps),
    p50: avg((r) => r.p50),
    p99: avg((r) => r.p99),
    failures: sum((r) => r.failures),
    cpuPerRequest:
      sum((r) => r.cpuMicros) /
      Math.max(
        1,
        sum((r) => r.requests),
      ),
  };
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const xs = [...values].sort((a, b) => a - b);
  const m = xs.length >> 1;
  return xs.length % 2 ? xs[m] : (xs[m - 1] + xs[m]) / 2;
}

export interface Spread {
  median: number;
  min: number;
  max: number;
}

const spread = (xs: number[]): Spread => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs) });

/**
 * `ours` over `base`, round by round: both sides of a round run back to back, so each ratio sees one
 * state of the machine. req/s ours over theirs; CPU per request theirs over ours (higher is better
 * in both).
 */
export function pairedRatios(ours: Measured[], base: Measured[]): { rps: Spread; cpu: Spread } {
  const cpuPerRequest = (m: Measured) => m.cpuMicros / m.requests;
  return {
    rps: spread(ours.map((m, r) => m.rps / base[r].rps)),
    cpu: spread(ours.map((m, r) => cpuPerRequest(base[r]) / cpuPerRequest(m))),
  };
}
