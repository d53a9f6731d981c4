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
import type { LimitWindows, Decision, KeyLimits, SpendAsk, BudgetWindow } from "./windows.js";
import { MemoryWindows } from "./windows.js";

/** The spend the store recorded in a budget's window (the usage rows), to seed a window the limiter does not hold. */
export type SpendSeeder = (budget: BudgetWindow) => Promise<number>;

const PROBE_EVERY_MS = 1_000;

export interface LimiterLog {
  warn(obj: object, msg: string): void;
  info(msg: string): void;
}

/** Where a reservation was counted: settle it in the same place. */
export interface Reserved extends Decision {
  store: LimitWindows;
  /** The budgets it was counted against, to settle their cost. */
  ask?: SpendAsk;
}

export class KeyLimiter {
  private readonly memory: MemoryWindows;
  private degradedSince?: number;
  private nextProbeAt = 0;
  private readonly shared: LimitWindows | undefined;
  private readonly log: LimiterLog;
  private readonly onDegraded: (degraded: boolean) => void;

  private readonly seeder: SpendSeeder;
  /** The clock, in epoch ms (the probe's pace and the fallback's windows): tests move it. */
  private readonly now: () => number;

  constructor(
    shared: LimitWindows | undefined,
    log: LimiterLog,
    onDegraded: (degraded: boolean) => void = () => {},
    seeder: SpendSeeder = () => Promise.resolve(0),
    now: () => number = () => Date.now(),
  ) {
    this.shared = shared;
    this.log = log;
    this.onDegraded = onDegraded;
    this.seeder = seeder;
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

  /**
   * As `reserve`, with a run's cost against its budgets. A budget window the store does not hold yet
   * (a new period, a restarted Redis) is seeded with the spend the usage rows recorded in it, and
   * the reservation asked again: one extra round trip per budget and period, not per request.
   */
  async reserveSpend(key: string, limits: KeyLimits, tokens: number, ask: SpendAsk): Promise<Reserved> {
    for (let attempt = 0; ; attempt++) {
      const reserved = await this.reserveIn(key, limits, tokens, ask);
      const unseeded = reserved.spend?.unseeded ?? [];
      if (unseeded.length === 0 || attempt === 2) return { ...reserved, ask };
      const seeds = await Promise.all(unseeded.map((i) => this.seeder(ask.budgets[i])));
      unseeded.forEach((i, n) => (ask.budgets[i] = { ...ask.budgets[i], seed: seeds[n] }));
    }
  }

  private async reserveIn(key: string, limits: KeyLimits, tokens: number, ask: SpendAsk): Promise<Reserved> {
    const shared = this.shared;
    if (!shared || (this.degraded && this.now() < this.nextProbeAt))
      return { ...this.memory.reserveSpendNow(key, limits, tokens, ask), store: this.memory };
    try {
      const decision = await shared.reserveSpend(key, limits, tokens, ask);
      this.recovered();
      return { ...decision, store: shared };
    } catch (err) {
      this.failed(err);
      return { ...this.memory.reserveSpendNow(key, limits, tokens, ask), store: this.memory };
    }
  }

  /** Settles a reservation where it was made; a failed settlement is dropped (the window ends anyway). */
  settle(reserved: Reserved, key: string, delta: number, costDelta = 0): void {
    const failed = (err: unknown) => this.failed(err);
    if (delta !== 0) reserved.store.settle(key, reserved.window, delta).catch(failed);
    if (costDelta !== 0 && reserved.ask)
      for (const b of reserved.ask.budgets) reserved.store.settleSpend(b.id, b.start, costDelta).catch(failed);
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
