/**
 * The limiter every replica consults: Redis when it is configured, else this process's memory.
 *
 * Policy while Redis is slow or away: every call is bounded by the client's command timeout (twice
 * it for a call pipelined behind a stalled one, redis-client.ts); a call that fails or times out
 * is answered from a per-replica in-memory window with the same limits (fail to a local limit,
 * never to no limit: across N replicas a key may get up to N× its limit meanwhile). Once Redis
 * failed, requests go straight to memory and one call a second probes Redis, so a stalled Redis
 * costs one bounded wait a second, not one per request. The outage is logged once when it starts
 * and once when it ends.
 */
import type { LimitWindows, Decision, KeyLimits } from "./windows.js";
import { MemoryWindows } from "./windows.js";

const PROBE_EVERY_MS = 1_000;

export interface LimiterLog {
  warn(obj: object, msg: string): void;
  info(msg: string): void;
}

/** Where a reservation was counted: settle it in the same place. */
export interface Reserved extends Decision {
  store: LimitWindows;
}

export class KeyLimiter {
  private readonly memory: MemoryWindows;
  private degradedSince?: number;
  private nextProbeAt = 0;
  private readonly shared: LimitWindows | undefined;
  private readonly log: LimiterLog;
  private readonly onDegraded: (degraded: boolean) => void;
  /** The clock, in epoch ms (the probe's pace and the fallback's windows): tests move it. */
  private readonly now: () => number;

  constructor(
    shared: LimitWindows | undefined,
    log: LimiterLog,
    onDegraded: (degraded: boolean) => void = () => {},
    now: () => number = Date.now,
  ) {
    this.shared = shared;
    this.log = log;
    this.onDegraded = onDegraded;
    this.now = now;
    this.memory = new MemoryWindows(now);
  }

  /** Whether the shared counter is away and limits are counted per replica. */
  get degraded(): boolean {
    return this.degradedSince !== undefined;
  }

  get mode(): "redis" | "memory" | "degraded" {
    return !this.shared ? "memory" : this.degraded ? "degraded" : "redis";
  }

  async reserve(key: string, limits: KeyLimits, tokens: number): Promise<Reserved> {
    const shared = this.shared;
    if (!shared || (this.degraded && this.now() < this.nextProbeAt))
      return { ...this.memory.reserveNow(key, limits, tokens), store: this.memory };
    try {
      const decision = await shared.reserve(key, limits, tokens);
      this.recovered();
      return { ...decision, store: shared };
    } catch (err) {
      this.failed(err);
      return { ...this.memory.reserveNow(key, limits, tokens), store: this.memory };
    }
  }

  /** Settles a reservation where it was made; a failed settlement is dropped (the window ends anyway). */
  settle(reserved: Reserved, key: string, delta: number): void {
    if (delta === 0) return;
    reserved.store.settle(key, reserved.window, delta).catch((err: unknown) => this.failed(err));
  }

  /** At shutdown: the last settlements are written while the connection is still open. */
  async close(): Promise<void> {
    await this.shared?.close?.();
  }

  private failed(err: unknown): void {
    this.nextProbeAt = this.now() + PROBE_EVERY_MS;
    if (this.degraded) return;
    this.degradedSince = this.now();
    this.onDegraded(true);
    const { code, message } = err as NodeJS.ErrnoException;
    this.log.warn(
      { code, reason: message },
      "Redis (rate limits) is not answering; limits are counted per replica until it does",
    );
  }

  private recovered(): void {
    if (!this.degraded) return;
    this.degradedSince = undefined;
    this.onDegraded(false);
    this.log.info("Redis (rate limits) answers again; limits are shared by the replicas again");
  }
}
