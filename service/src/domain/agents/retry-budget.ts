/**
 * One upstream's retry budget, pure on an injected clock: over the last `windowMs`, retries may be
 * at most `percent`% of the calls made (first tries), plus `min` always allowed so that a quiet
 * upstream can still be retried. Once spent, a failed call is not retried: the request moves on to
 * its fallback or fails. Without it, an upstream that fails answers every request's retries too,
 * and a brown-out becomes a multiple of its load.
 *
 * Defined as Envoy's retry budget (cluster circuit_breakers.thresholds.retry_budget:
 * `budget_percent`, default 20%, of active requests, and `min_retry_concurrency`, default 3) and
 * Finagle's RetryBudget (`ttl`, `minRetriesPerSec`, `percentCanRetry`), counted over a time window
 * as Finagle does since a request here may wait out a backoff without being active.
 */

export interface RetryBudgetOptions {
  /** Retries allowed as a share of calls in the window, 0–100. */
  percent: number;
  /** Retries always allowed in the window. */
  min: number;
  windowMs: number;
}

/** The window is counted in this many slices (older slices drop out whole). */
const SLICES = 10;

export class RetryBudget {
  private readonly calls = new Array<number>(SLICES).fill(0);
  private readonly retries = new Array<number>(SLICES).fill(0);
  /** The slice number (time / slice length) each index last held. */
  private readonly sliceOf = new Array<number>(SLICES).fill(-1);
  private readonly sliceMs: number;

  private readonly opts: RetryBudgetOptions;
  private readonly now: () => number;

  constructor(opts: RetryBudgetOptions, now: () => number = () => Date.now()) {
    this.opts = opts;
    this.now = now;
    this.sliceMs = Math.max(1, opts.windowMs / SLICES);
  }

  /** A first try of the upstream (a request reaching it). */
  called(): void {
    this.calls[this.slot()]++;
  }

  /** Takes one retry from the budget if there is one left; false when spent. */
  tryRetry(): boolean {
    const i = this.slot();
    let calls = 0;
    let retries = 0;
    for (let j = 0; j < SLICES; j++) {
      calls += this.calls[j];
      retries += this.retries[j];
    }
    if (retries >= this.opts.min + Math.floor((calls * this.opts.percent) / 100)) return false;
    this.retries[i]++;
    return true;
  }

  /** The index of the current slice, emptying the slices that fell out of the window. */
  private slot(): number {
    const slice = Math.floor(this.now() / this.sliceMs);
    const i = slice % SLICES;
    if (this.sliceOf[i] !== slice) {
      for (let j = 0; j < SLICES; j++) {
        if (this.sliceOf[j] <= slice - SLICES) {
          this.calls[j] = 0;
          this.retries[j] = 0;
          this.sliceOf[j] = -1;
        }
      }
      this.calls[i] = 0;
      this.retries[i] = 0;
      this.sliceOf[i] = slice;
    }
    return i;
  }
}
