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

/**
 * Starts `total` jobs at `rate` per second, evenly spaced (open loop: a slow target does not
 * slow the arrivals, as GuideLLM's constant profile), none after `deadline`; waits for all.
 */
export async function runAtRate(
  total: number,
  rate: number,
  deadline: number,
  job: (index: number) => Promise<void>,
): Promise<{ started: number }> {
  const t0 = performance.now();
  const running: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const at = t0 + (i * 1000) / rate;
    if (at >= deadline) break;
    const wait = at - performance.now();
    if (wait > 0) await sleep(wait);
    running.push(job(i));
  }
  await Promise.all(running);
  return { started: running.length };
}
