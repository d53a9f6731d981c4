import { setTimeout as sleep } from "node:timers/promises";

/** Runs `total` jobs with at most `concurrency` in flight, starting none after `deadline`. */
export async function runPool(
  total: number,
  concurrency: number,
  deadline: number,
  job: (index: number) => Promise<void>,
): Promise<{ started: number }> {
  let next = 0;
  const worker = async () => {
    while (next < total && performance.now() < deadline) await job(next++);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, total)) }, worker));
  return { started: next };
}

export type Arrivals = "constant" | "poisson";

/**
 * When each of `total` arrivals at `rate` per second comes, ms after the first: evenly spaced
 * (GuideLLM's constant profile) or a Poisson process, whose gaps are exponential with mean
 * 1/rate — inverse-transform sampling, -ln(U)/rate, is one line, no library needed.
 */
export function arrivalOffsets(
  total: number,
  rate: number,
  arrivals: Arrivals,
  random: () => number = Math.random,
): number[] {
  const offsets: number[] = [];
  let t = 0;
  for (let i = 0; i < total; i++) {
    if (i > 0) t += arrivals === "constant" ? 1000 / rate : (-Math.log(1 - random()) * 1000) / rate;
    offsets.push(t);
  }
  return offsets;
}

/**
 * Starts `total` jobs at `rate` per second (open loop: a slow target does not slow the
 * arrivals), none after `deadline`; waits for all.
 */
export async function runAtRate(
  total: number,
  rate: number,
  deadline: number,
  job: (index: number) => Promise<void>,
  arrivals: Arrivals = "constant",
): Promise<{ started: number }> {
  const t0 = performance.now();
  const offsets = arrivalOffsets(total, rate, arrivals);
  const running: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const at = t0 + offsets[i];
    if (at >= deadline) break;
    const wait = at - performance.now();
    if (wait > 0) await sleep(wait);
    running.push(job(i));
  }
  await Promise.all(running);
  return { started: running.length };
}
