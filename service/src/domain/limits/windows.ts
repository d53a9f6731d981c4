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
  /** Budgets the reservation was checked against (reserveSpend only). */
  spend?: SpendDecision;
}

/** A budget a reservation is checked against, in its current window. Money in micro-dollars. */
export interface BudgetWindow {
  /** `key:<id>` or `project:<id>`: where its spend is counted. */
  id: string;
  limit: number;
  /** Epoch ms the window started: its identity. */
  start: number;
  /** Epoch ms it ends; null: never. */
  end: number | null;
  /** The window's spend so far as the store recorded it, given once the windows asked for it. */
  seed?: number;
}

/** A run's estimated cost and the budgets it is checked against. */
export interface SpendAsk {
  cost: number;
  budgets: BudgetWindow[];
}

/** What the budgets answered. Indexes are into the ask's `budgets`. */
export interface SpendDecision {
  /** The budget that refused (already spent), if one did. */
  refused?: number;
  /** Budgets whose window the windows do not hold yet: ask again with their `seed`. */
  unseeded: number[];
  /** Each budget's spend after this reservation (before it, when refused). */
  spent: number[];
  /** Thresholds each budget passed with this call, first time in its window (ALERT_* bits). */
  crossed: number[];
}

/** Bits of `crossed`: the budget passed 80% / 100% of its limit. */
export const ALERT_80 = 1;
export const ALERT_100 = 2;

/** The thresholds a budget's spend has reached (ALERT_* bits). */
export function thresholdsReached(spent: number, limit: number): number {
  return (spent * 5 >= limit * 4 ? ALERT_80 : 0) | (spent >= limit ? ALERT_100 : 0);
}

/** The budget admission rule, shared with the Lua script: a budget admits until it is spent. */
export function budgetAdmits(limit: number, spent: number): boolean {
  return spent < limit;
}

export interface LimitWindows {
  /** Checks and reserves one request unit and `tokens` together, in one atomic step. */
  reserve(key: string, limits: KeyLimits, tokens: number): Promise<Decision>;
  /** Adds `delta` tokens (negative: a refund) to the window the reservation was made in, if it still lasts. */
  settle(key: string, window: string, delta: number): Promise<void>;
  /**
   * As `reserve`, and the run's estimated cost against its budgets in the same atomic step: refused
   * when a rate limit or a budget is reached, else the cost is added to every budget's window.
   */
  reserveSpend(key: string, limits: KeyLimits, tokens: number, spend: SpendAsk): Promise<Decision>;
  /** Adds `cost` (negative: a refund) to a budget's window, if it is still the one starting at `start`. */
  settleSpend(budget: string, start: number, cost: number): Promise<void>;
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

interface MemoryBudget {
  start: number;
  end: number | null;
  spent: number;
  /** ALERT_* bits already raised in this window. */
  alerted: number;
}

let windowSerial = 0;

/** The same windows in this process's memory; expired ones are swept once a window. */
export class MemoryWindows implements LimitWindows {
  private readonly windows = new Map<string, MemoryWindow>();
  private readonly budgets = new Map<string, MemoryBudget>();
  /** The clock, in epoch ms: tests move it across window boundaries. */
  private readonly now: () => number;
  private sweptAt: number;

  constructor(now: () => number = () => Date.now()) {
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
    const w = this.current(key);
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

  async reserveSpend(key: string, limits: KeyLimits, tokens: number, ask: SpendAsk): Promise<Decision> {
    return this.reserveSpendNow(key, limits, tokens, ask);
  }

  /** As the Redis script: budgets read (or seeded), rate limits checked, budgets checked, then all counted. */
  reserveSpendNow(key: string, limits: KeyLimits, tokens: number, ask: SpendAsk): Decision {
    const budgets: MemoryBudget[] = [];
    const unseeded: number[] = [];
    ask.budgets.forEach((b, i) => {
      let held = this.budgets.get(b.id);
      if (held?.start !== b.start) {
        if (b.seed === undefined) return void unseeded.push(i);
        held = { start: b.start, end: b.end, spent: b.seed, alerted: 0 };
        this.budgets.set(b.id, held);
      }
      budgets.push(held);
    });
    const spent = () => budgets.map((b) => b.spent);
    const none = { requests: 0, tokens: 0, resetMs: 0, window: "" };
    if (unseeded.length) return { allowed: false, ...none, spend: { unseeded, spent: [], crossed: [] } };
    const w = this.current(key);
    const head = { requests: w.requests, tokens: w.tokens, resetMs: w.endsAt - this.now(), window: w.id };
    if (!admits(limits, w.requests, w.tokens))
      return { allowed: false, ...head, spend: { unseeded, spent: spent(), crossed: [] } };
    const refused = ask.budgets.findIndex((b, i) => !budgetAdmits(b.limit, budgets[i].spent));
    if (refused >= 0) {
      const crossed = budgets.map((b, i) => raise(b, ask.budgets[i].limit));
      return { allowed: false, ...head, spend: { refused, unseeded, spent: spent(), crossed } };
    }
    w.requests += 1;
    w.tokens += tokens;
    for (const b of budgets) b.spent += ask.cost;
    const crossed = budgets.map((b, i) => raise(b, ask.budgets[i].limit));
    return {
      allowed: true,
      ...head,
      requests: w.requests,
      tokens: w.tokens,
      spend: { unseeded, spent: spent(), crossed },
    };
  }

  async settleSpend(budget: string, start: number, cost: number): Promise<void> {
    const b = this.budgets.get(budget);
    if (b?.start === start) b.spent = Math.max(0, b.spent + cost);
  }

  /** The key's window now, a new one when it has none or it ended. */
  private current(key: string): MemoryWindow {
    const now = this.now();
    this.sweep(now);
    let w = this.windows.get(key);
    if (!w || w.endsAt <= now) {
      w = { requests: 0, tokens: 0, endsAt: now + WINDOW_MS, id: "m" + (++windowSerial).toString(36) };
      this.windows.set(key, w);
    }
    return w;
  }

  private sweep(now: number): void {
    if (now - this.sweptAt < WINDOW_MS) return;
    this.sweptAt = now;
    for (const [key, w] of this.windows) if (w.endsAt <= now) this.windows.delete(key);
    for (const [id, b] of this.budgets) if (b.end !== null && b.end <= now) this.budgets.delete(id);
  }
}

/** The thresholds a budget passes now for the first time in its window (ALERT_* bits), marked as raised. */
function raise(b: MemoryBudget, limit: number): number {
  const fresh = thresholdsReached(b.spent, limit) & ~b.alerted;
  b.alerted |= fresh;
  return fresh;
}
