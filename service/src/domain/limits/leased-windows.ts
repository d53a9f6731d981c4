/**
 * Credit leasing over the shared windows: a reservation that goes to Redis may come back with
 * credit for more requests and tokens of the same window (redis-windows.ts), which this replica
 * then spends without a round trip. Redis counts the credit as used when it grants it, so the
 * replicas together never admit more than the limit; what credit costs is fairness, and it is
 * bounded three ways:
 *
 * - A grant is at most BLOCK requests (and their tokens), and at most 1/CREDIT_SHARE of what the
 *   window has left: near a limit it is 0 and every request is counted in Redis, one by one.
 * - A replica that goes to Redis gives its unused credit back in the same call, before the check.
 * - Credit unused for `idleMs` goes back in the next settlement batch, and all of it at shutdown.
 *
 * One call per key asks for credit at a time: the key's requests that arrive meanwhile wait for its
 * grant and spend it, and go to Redis themselves only when it does not cover them (if it failed,
 * they fail with it, and the limiter answers them from its fallback at once). A burst that arrives
 * together thus takes one block, not one each, and makes one call, not one each.
 */
// Leases are timed on the monotonic clock: a wall clock stepped back must not let one outlive its window.
import { performance } from "node:perf_hooks";
import type { Credit, CreditWindows, Decision, Grant, KeyLimits, LimitWindows, SpendAsk } from "./windows.js";

/** The most requests of credit one grant carries. */
export const BLOCK = 32;
/** Credit unused this long goes back to its window. */
export const IDLE_MS = 1_000;

interface Lease {
  window: string;
  endsAt: number;
  /** The limits it was granted under: a key whose limits changed goes to Redis. */
  rpm: number;
  tpm: number;
  /** Credit left; Infinity for a dimension the key has no limit on. */
  requests: number;
  tokens: number;
  /** The window's use as this replica knows it, for the headers. */
  usedRequests: number;
  usedTokens: number;
  lastUsed: number;
}

export class LeasedWindows implements LimitWindows {
  private readonly leases = new Map<string, Lease>();
  /** Keys whose call asking for credit is on its way: settles once its credit is in the lease, and fails if the call failed. */
  private readonly granting = new Map<string, Promise<Decision>>();
  private readonly sweep: NodeJS.Timeout;
  /** Redis calls that failed so far: a grant from a call sent before the latest failure is not kept. */
  private failures = 0;
  private readonly source: CreditWindows;
  private readonly idleMs: number;
  /** The monotonic clock, in ms: tests move it across lease expiry and idleness. */
  private readonly now: () => number;

  constructor(source: CreditWindows, idleMs = IDLE_MS, now: () => number = () => performance.now()) {
    this.source = source;
    this.idleMs = idleMs;
    this.now = now;
    this.sweep = setInterval(() => this.returnIdle(this.now() - this.idleMs), Math.max(10, idleMs / 2));
    this.sweep.unref();
  }

  async reserve(key: string, limits: KeyLimits, tokens: number): Promise<Decision> {
    const spent = this.spend(key, limits, tokens);
    if (spent) return spent;
    // A grant on its way may cover this request too: wait for it rather than make a call of our own.
    const granting = this.granting.get(key);
    if (granting) {
      // A grant that fails fails its waiters too: they fall back at once instead of waiting on Redis again.
      await granting;
      const after = this.spend(key, limits, tokens);
      if (after) return after;
    }
    return this.ask(key, limits, tokens);
  }

  /** A reservation from the key's credit, if it covers one; undefined otherwise. */
  private spend(key: string, limits: KeyLimits, tokens: number): Decision | undefined {
    const lease = this.leases.get(key);
    const now = this.now();
    if (
      !lease ||
      lease.endsAt <= now ||
      !sameLimits(lease, limits, tokens) ||
      lease.requests < 1 ||
      lease.tokens < tokens
    )
      return undefined;
    lease.requests--;
    lease.tokens -= tokens;
    lease.lastUsed = now;
    return {
      allowed: true,
      requests: ++lease.usedRequests,
      tokens: (lease.usedTokens += tokens),
      resetMs: lease.endsAt - now,
      window: lease.window,
    };
  }

  /** Reserves in Redis, giving back the key's unused credit, and asking for more unless a grant is already on its way. */
  private ask(key: string, limits: KeyLimits, tokens: number): Promise<Decision> {
    const lease = this.leases.get(key);
    const returned = lease ? this.takeBack(key, lease) : undefined;
    const block = this.granting.has(key) ? 0 : BLOCK;
    const reserved = this.call(key, limits, tokens, block, returned);
    if (block) {
      this.granting.set(key, reserved);
      const done = () => void (this.granting.get(key) === reserved && this.granting.delete(key));
      reserved.then(done, done);
    }
    return reserved;
  }

  /** The Redis call; its credit is in the lease by the time it resolves. */
  private async call(
    key: string,
    limits: KeyLimits,
    tokens: number,
    block: number,
    returned: Credit | undefined,
  ): Promise<Decision> {
    const now = this.now();
    const failures = this.failures;
    try {
      const grant = await this.source.reserve(key, limits, tokens, block, returned);
      if (!grant.allowed) return grant;
      if (this.failures !== failures) {
        // Redis failed meanwhile: no credit is kept (the limiter's probe must reach Redis, not a
        // lease); this request stands, its credit goes back.
        this.giveBack(key, { ...grant, rpm: limits.rpm, tpm: limits.tpm, ...grant.credit });
        return grant;
      }
      // Redis's count includes this replica's credit not yet spent: that is not used yet.
      const own = this.lease(key, limits, grant, now);
      return { ...grant, requests: grant.requests - own.requests, tokens: grant.tokens - own.tokens };
    } catch (err) {
      // Redis failed: nothing is answered from credit until it answers again. The unused credit is
      // given back with the next settlement (dropped if Redis is still away), so one timeout does
      // not strand every key's credit for the rest of its window.
      this.failures++;
      for (const [other, lease] of this.leases) this.giveBack(other, lease);
      this.leases.clear();
      throw err;
    }
  }

  settle(key: string, window: string, delta: number): Promise<void> {
    return this.source.settle(key, window, delta);
  }

  /**
   * A run with a budget goes to Redis every time, without credit: a budget is money, counted one
   * run at a time across the replicas (the key's lease, if any, stays for its runs without cost).
   */
  reserveSpend(key: string, limits: KeyLimits, tokens: number, spend: SpendAsk): Promise<Decision> {
    return this.source.reserveSpend(key, limits, tokens, spend);
  }

  settleSpend(budget: string, start: number, cost: number): Promise<void> {
    return this.source.settleSpend(budget, start, cost);
  }

  /** At shutdown: every unused credit goes back with the last settlements. */
  async close(): Promise<void> {
    clearInterval(this.sweep);
    this.returnIdle(Infinity);
    await this.source.close?.();
  }

  /**
   * Adds a grant's credit to the key's lease (a new lease for a new window or new limits); answers
   * the credit the lease held unspent before it.
   */
  private lease(key: string, limits: KeyLimits, grant: Grant, now: number): Credit {
    let lease = this.leases.get(key);
    if (!lease || lease.window !== grant.window || lease.rpm !== limits.rpm || lease.tpm !== limits.tpm) {
      if (lease) this.giveBack(key, lease);
      lease = {
        window: grant.window,
        endsAt: now + grant.resetMs,
        rpm: limits.rpm,
        tpm: limits.tpm,
        requests: 0,
        tokens: 0,
        usedRequests: 0,
        usedTokens: 0,
        lastUsed: now,
      };
      this.leases.set(key, lease);
    }
    const own = unused(lease);
    lease.usedRequests = Math.max(lease.usedRequests, grant.requests - own.requests);
    lease.usedTokens = Math.max(lease.usedTokens, grant.tokens - own.tokens);
    lease.requests = limits.rpm === 0 ? Infinity : lease.requests + grant.credit.requests;
    lease.tokens = limits.tpm === 0 ? Infinity : lease.tokens + grant.credit.tokens;
    lease.lastUsed = now;
    return own;
  }

  /** The lease's unused credit, taken out of it to go back with the next call. */
  private takeBack(key: string, lease: Lease): Credit | undefined {
    const credit = unused(lease);
    this.leases.delete(key);
    return credit.requests || credit.tokens ? credit : undefined;
  }

  /** The lease's unused credit goes back with the next settlement batch. */
  private giveBack(key: string, lease: Pick<Lease, "window" | "rpm" | "tpm" | "requests" | "tokens">): void {
    const credit = unused(lease);
    if (credit.requests || credit.tokens)
      this.source.settle(key, credit.window, -credit.tokens, -credit.requests).catch(() => {});
  }

  /** Gives back the credit of leases unused since `before`, and forgets leases whose window ended. */
  private returnIdle(before: number): void {
    const now = this.now();
    for (const [key, lease] of this.leases) {
      if (lease.endsAt <= now) this.leases.delete(key);
      else if (lease.lastUsed < before) {
        this.leases.delete(key);
        this.giveBack(key, lease);
      }
    }
  }
}

/**
 * Whether a lease was granted under these limits. A plain request (one unit, no tokens: tpm 0)
 * may spend a run's lease too, as Redis would count it the same; the other way round it may not.
 */
function sameLimits(lease: Lease, limits: KeyLimits, tokens: number): boolean {
  return lease.rpm === limits.rpm && (lease.tpm === limits.tpm || (limits.tpm === 0 && tokens === 0));
}

/** What a lease has not spent, in the dimensions the key is limited in. */
function unused(lease: Pick<Lease, "window" | "rpm" | "tpm" | "requests" | "tokens">): Credit {
  return {
    window: lease.window,
    requests: lease.rpm === 0 ? 0 : lease.requests,
    tokens: lease.tpm === 0 ? 0 : lease.tokens,
  };
}
