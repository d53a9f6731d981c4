/**
 * One upstream's circuit breaker, a pure state machine on an injected clock (no timers, no I/O):
 *
 *   closed ──(`failures` failed calls within `windowMs`)──▶ open
 *   open ──(`cooldownMs` passed; the next call is let through as the one probe)──▶ half_open
 *   half_open ──(the probe succeeds)──▶ closed;  ──(the probe fails)──▶ open (a new cooldown)
 *
 * While open, and while a probe is out, calls are refused (`acquire()` is false) and the caller
 * goes straight to its fallback. A probe that ends neither way (the client left) frees its slot
 * for the next call; one out longer than a cooldown is taken as lost, so the breaker never sticks.
 *
 * Defined after LiteLLM's router cooldown (litellm/router_utils/cooldown_handlers.py,
 * `should_cooldown_based_on_allowed_fails_policy`: more than `allowed_fails` failures within
 * `cooldown_time` put the deployment in cooldown for `cooldown_time`, then it is simply tried
 * again), with the half-open single probe of Envoy's outlier detection and of the classic breaker
 * instead of sending all traffic back at once. Per replica, as Envoy's and LiteLLM's in-memory ones.
 */

export type BreakerState = "closed" | "open" | "half_open";

export interface BreakerOptions {
  /** Failed calls within the window that open the breaker (at least 1). */
  failures: number;
  windowMs: number;
  /** How long the breaker stays open before it lets one probe through. */
  cooldownMs: number;
}

export type TransitionListener = (from: BreakerState, to: BreakerState) => void;

export class CircuitBreaker {
  private current: BreakerState = "closed";
  /** Times of the recent failures while closed, oldest first; at most `failures` kept. */
  private recent: number[] = [];
  private openedAt = 0;
  /** When the half-open probe went out; undefined when none is out. */
  private probeAt?: number;

  private readonly opts: BreakerOptions;
  private readonly now: () => number;
  private readonly onTransition: TransitionListener;

  constructor(opts: BreakerOptions, now: () => number = () => Date.now(), onTransition: TransitionListener = () => {}) {
    this.opts = opts;
    this.now = now;
    this.onTransition = onTransition;
    if (!(opts.failures >= 1)) throw new RangeError("a breaker opens after at least 1 failure");
  }

  /** The state as a caller would find it now (open turns half-open once the cooldown has passed). */
  get state(): BreakerState {
    if (this.current === "open" && this.now() - this.openedAt >= this.opts.cooldownMs) return "half_open";
    return this.current;
  }

  /** Milliseconds until an open breaker lets a probe through (0 when it would now). */
  openFor(): number {
    return this.current === "open" ? Math.max(0, this.opts.cooldownMs - (this.now() - this.openedAt)) : 0;
  }

  /** Whether a call may go to the upstream now; in half-open, true for the one probe only. */
  acquire(): boolean {
    const now = this.now();
    if (this.current === "closed") return true;
    if (this.current === "open") {
      if (now - this.openedAt < this.opts.cooldownMs) return false;
      this.move("half_open");
    }
    if (this.probeAt !== undefined && now - this.probeAt < this.opts.cooldownMs) return false;
    this.probeAt = now;
    return true;
  }

  /** The upstream answered (any answer that is not a failure worth a retry). */
  succeeded(): void {
    this.recent = [];
    this.probeAt = undefined;
    if (this.current !== "closed") this.move("closed");
  }

  /** A call failed in a way worth a retry (connect error, timeout, 429, 5xx). */
  failed(): void {
    const now = this.now();
    if (this.current === "half_open") return this.open(now);
    if (this.current === "open") return; // a call let through before it opened: the cooldown stands
    this.recent = this.recent.filter((at) => now - at < this.opts.windowMs);
    this.recent.push(now);
    if (this.recent.length >= this.opts.failures) this.open(now);
  }

  /** A call ended neither way (the client left): a probe's slot is free again. */
  abandoned(): void {
    this.probeAt = undefined;
  }

  private open(now: number): void {
    this.openedAt = now;
    this.recent = [];
    this.probeAt = undefined;
    this.move("open");
  }

  private move(to: BreakerState): void {
    const from = this.current;
    this.current = to;
    if (from !== to) this.onTransition(from, to);
  }
}
