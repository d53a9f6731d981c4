/**
 * Removes expired stored responses from the table: every interval (with jitter, so replicas
 * started together do not sweep in step) it deletes batches of expired rows until a batch comes
 * back short or the per-run bound is reached; a backlog drains over several runs instead of
 * holding the store. Replicas may sweep at once (the store's delete skips rows another holds).
 * A failed run is logged and the next one tries again; reads never depend on the sweep, since
 * they hide expired rows themselves.
 */
import type { ResponseStore } from "./response-store.js";

export interface SweepLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** What the scheduled runs report to the metrics: rows removed, and runs that failed. */
export interface SweepCounts {
  removed(rows: number): void;
  failed(): void;
}

const UNCOUNTED: SweepCounts = { removed() {}, failed() {} };

export interface RetentionSweepOptions {
  /** Mean time between runs. */
  intervalMs: number;
  /** Rows one delete statement removes at most. */
  batch: number;
  /** Delete statements one run issues at most. */
  maxBatches: number;
  /** Source of jitter in [0, 1) (tests pin it). */
  random?: () => number;
}

export const DEFAULT_SWEEP: RetentionSweepOptions = { intervalMs: 5 * 60_000, batch: 500, maxBatches: 20 };

export class RetentionSweep {
  private readonly store: Pick<ResponseStore, "deleteExpired">;
  private readonly log: SweepLog;
  private readonly opts: RetentionSweepOptions;
  private readonly counts: SweepCounts;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    store: Pick<ResponseStore, "deleteExpired">,
    log: SweepLog,
    opts: RetentionSweepOptions = DEFAULT_SWEEP,
    counts: SweepCounts = UNCOUNTED,
  ) {
    this.store = store;
    this.log = log;
    this.opts = opts;
    this.counts = counts;
  }

  /** One run: the rows removed. Throws what the store threw (after the batches that succeeded). */
  async run(): Promise<number> {
    let removed = 0;
    for (let i = 0; i < this.opts.maxBatches && !this.stopped; i++) {
      const n = await this.store.deleteExpired(this.opts.batch);
      removed += n;
      if (n < this.opts.batch) break;
    }
    return removed;
  }

  /** Schedules runs on an unref'd timer (it never keeps the process alive); the next is set when one ends, so runs never overlap. */
  start(): void {
    const random = this.opts.random ?? Math.random;
    const next = () => {
      if (this.stopped) return;
      // Between half and one and a half intervals.
      this.timer = setTimeout(tick, this.opts.intervalMs * (0.5 + random())).unref();
    };
    const tick = () => {
      this.running = this.run().then(
        (removed) => {
          this.counts.removed(removed);
          if (removed) this.log.info({ removed }, "expired stored responses removed");
        },
        (err: unknown) => {
          this.counts.failed();
          this.log.warn(
            { err: err instanceof Error ? err.message : String(err) },
            "expired responses sweep failed; the next run retries",
          );
        },
      );
      void this.running.then(next);
    };
    next();
  }

  /** Stops the timer and waits for a run under way, so nothing queries a store being closed. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
