/**
 * Per-key one-minute windows of requests and tokens: what a reservation asks and answers, and
 * the in-memory store (one process: `npm start` without REDIS_URL, and the fallback while Redis is
 * away). redis-windows.ts counts the same in Redis, shared by the replicas.
 */

export const WINDOW_MS = 60_000;

/** A key's limits; 0 means that dimension is not limited. */
export interface KeyLimits {
  rpm: number;
  tpm: number;
}

/** What one reservation answers: everything the `x-ratelimit-*` headers and a 429 need. */
export interface Decision {
  /** false: refused, nothing was reserved. */
  allowed: boolean;
  /** Requests and tokens in the window after this reservation (before it, when refused). */
  requests: number;
  tokens: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
  /** The window's identity: a settlement lands in it only while it lasts. */
  window: string;
}

export interface LimitWindows {
  /** Checks and reserves one request unit and `tokens` together, in one atomic step. */
  reserve(key: string, limits: KeyLimits, tokens: number): Promise<Decision>;
  /** Adds `delta` tokens (negative: a refund) to the window the reservation was made in, if it still lasts. */
  settle(key: string, window: string, delta: number): Promise<void>;
  /** Writes what is still pending (settlements sent in batches). */
  close?(): Promise<void>;
}

/** Requests and tokens of one window: credit granted to a replica, or given back. */
export interface Credit {
  window: string;
  requests: number;
  tokens: number;
}

/** A reservation that may come with credit: more requests and tokens this replica may admit on its own. */
export interface Grant extends Decision {
  credit: { requests: number; tokens: number };
}

/** Windows that grant credit (Redis): leased-windows.ts spends it without a round trip. */
export interface CreditWindows extends LimitWindows {
  /** As `reserve`, giving `returned` back first, and granting credit for up to `block` more requests. */
  reserve(key: string, limits: KeyLimits, tokens: number, block?: number, returned?: Credit): Promise<Grant>;
  /** As `settle`; `requests` gives back request units too. */
  settle(key: string, window: string, delta: number, requests?: number): Promise<void>;
}

/** The one admission rule, shared with the Lua script: a request unit left, and tokens not yet spent. */
export function admits(limits: KeyLimits, requests: number, tokens: number): boolean {
  return (limits.rpm === 0 || requests < limits.rpm) && (limits.tpm === 0 || tokens < limits.tpm);
}

interface MemoryWindow {
  requests: number;
  tokens: number;
  endsAt: number;
  id: string;
}

let windowSerial = 0;

/** The same windows in this process's memory; expired ones are swept once a window. */
export class MemoryWindows implements LimitWindows {
  private readonly windows = new Map<string, MemoryWindow>();
  /** The clock, in epoch ms: tests move it across window boundaries. */
  private readonly now: () => number;
  private sweptAt: number;

  constructor(now: () => number = Date.now) {
    this.now = now;
    this.sweptAt = now();
  }

  /** Keys whose window this process holds: the sweep keeps it to the keys seen in the last window or two. */
  get size(): number {
    return this.windows.size;
  }

  async reserve(key: string, limits: KeyLimits, tokens: number): Promise<Decision> {
    return this.reserveNow(key, limits, tokens);
  }

  reserveNow(key: string, limits: KeyLimits, tokens: number): Decision {
    const now = this.now();
    this.sweep(now);
    let w = this.windows.get(key);
    if (!w || w.endsAt <= now) {
      w = { requests: 0, tokens: 0, endsAt: now + WINDOW_MS, id: "m" + (++windowSerial).toString(36) };
      this.windows.set(key, w);
    }
    const allowed = admits(limits, w.requests, w.tokens);
    if (allowed) {
      w.requests += 1;
      w.tokens += tokens;
    }
    return { allowed, requests: w.requests, tokens: w.tokens, resetMs: w.endsAt - now, window: w.id };
  }

  async settle(key: string, window: string, delta: number): Promise<void> {
    const w = this.windows.get(key);
    if (w && w.id === window && w.endsAt > this.now()) w.tokens = Math.max(0, w.tokens + delta);
  }

  private sweep(now: number): void {
    if (now - this.sweptAt < WINDOW_MS) return;
    this.sweptAt = now;
    for (const [key, w] of this.windows) if (w.endsAt <= now) this.windows.delete(key);
  }
}
