/**
 * Stops one chat request's agent: when the client leaves, or when the shutdown deadline passes.
 * It is itself the signal an upstream request takes (it emits "abort"); the AbortController
 * behind `signal` is made only if an agent asks for one (most never do), and the deadline has one
 * listener for all requests, not one each.
 */
import { EventEmitter } from "node:events";

const live = new WeakMap<AbortSignal, Set<Stopper>>();

export class Stopper extends EventEmitter {
  private controller?: AbortController;
  private stopped = false;
  private readonly peers: Set<Stopper>;

  constructor(deadline: AbortSignal) {
    super();
    let peers = live.get(deadline);
    if (!peers) {
      const all = new Set<Stopper>();
      deadline.addEventListener("abort", () => all.forEach((s) => s.stop()), { once: true });
      live.set(deadline, all);
      peers = all;
    }
    this.peers = peers;
    if (deadline.aborted) this.stopped = true;
    else peers.add(this);
  }

  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    if (this.stopped) this.controller.abort();
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.stopped;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.controller?.abort();
    this.emit("abort");
  }

  /** The request is over: forget it. */
  release(): void {
    this.peers.delete(this);
  }
}
