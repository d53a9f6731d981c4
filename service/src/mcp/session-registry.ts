/**
 * The open MCP sessions of this replica, bounded so a client cannot exhaust memory: at most
 * `maxPerKey` per API key (slots are reserved before a session exists, so concurrent
 * initializes cannot overshoot) and closed after `idleMs` without a message or a running tool.
 */
import { EventEmitter } from "node:events";
import type { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

export type McpSession = {
  id: string;
  /** The API key that opened the session; only that key may use it. */
  keyId: string;
  projectId: string;
  /** Closes the server and its transport (and so every stream of the session). */
  close(): Promise<void>;
} & ({ kind: "streamable"; transport: StreamableHTTPServerTransport } | { kind: "sse"; transport: SSEServerTransport });

interface Entry {
  session: McpSession;
  lastActive: number;
  /** Requests and tool calls under way; a session is never idle while one runs. */
  busy: number;
  /** Called when `busy` drops to zero (a shutdown waits for it). */
  onIdle?: () => void;
}

/** A held slot of a key's session budget: `commit` it with the session, or `release` it. */
export interface Reservation {
  commit(session: McpSession): void;
  release(): void;
}

export interface SessionRegistryOptions {
  idleMs: number;
  maxPerKey: number;
  now?: () => number;
}

export class SessionRegistry extends EventEmitter<{ closed: [id: string, reason: string] }> {
  private readonly sessions = new Map<string, Entry>();
  private readonly reserved = new Map<string, number>();
  private readonly now: () => number;
  private sweepTimer?: NodeJS.Timeout;

  private readonly opts: SessionRegistryOptions;
  constructor(opts: SessionRegistryOptions) {
    super();
    this.opts = opts;
    this.now = opts.now ?? Date.now;
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Sweeps idle sessions on an unref'd timer (it never keeps the process alive). */
  start(): void {
    const every = Math.min(Math.max(this.opts.idleMs / 2, 50), 30_000);
    // sweep() never rejects: close() swallows a transport's failure to close.
    this.sweepTimer = setInterval(() => void this.sweep(), every);
    this.sweepTimer.unref();
  }

  countForKey(keyId: string): number {
    let n = this.reserved.get(keyId) ?? 0;
    for (const e of this.sessions.values()) if (e.session.keyId === keyId) n++;
    return n;
  }

  /** Holds a slot for a session about to start; undefined when the key is at its limit. */
  reserve(keyId: string): Reservation | undefined {
    if (this.countForKey(keyId) >= this.opts.maxPerKey) return undefined;
    this.reserved.set(keyId, (this.reserved.get(keyId) ?? 0) + 1);
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      const n = (this.reserved.get(keyId) ?? 1) - 1;
      if (n > 0) this.reserved.set(keyId, n);
      else this.reserved.delete(keyId);
    };
    return {
      commit: (session) => {
        release();
        this.sessions.set(session.id, { session, lastActive: this.now(), busy: 0 });
      },
      release,
    };
  }

  get(id: string): McpSession | undefined {
    return this.sessions.get(id)?.session;
  }

  /** Records activity now (a message arrived). */
  touch(id: string): void {
    const entry = this.sessions.get(id);
    if (entry) entry.lastActive = this.now();
  }

  /** Marks the session busy until the returned function is called. */
  begin(id: string): () => void {
    const entry = this.sessions.get(id);
    if (!entry) return () => {};
    entry.busy++;
    entry.lastActive = this.now();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      entry.busy--;
      entry.lastActive = this.now();
      if (entry.busy === 0) entry.onIdle?.();
    };
  }

  /** Forgets a session that closed by itself (DELETE, client gone); idempotent. */
  remove(id: string, reason: string): void {
    if (this.sessions.delete(id)) this.emit("closed", id, reason);
  }

  /** The keys that hold open sessions. */
  keyIds(): string[] {
    return [...new Set([...this.sessions.values()].map((e) => e.session.keyId))];
  }

  /** Closes every session of a key (the key was revoked). */
  async closeKey(keyId: string): Promise<void> {
    const ids = [...this.sessions.values()].filter((e) => e.session.keyId === keyId).map((e) => e.session.id);
    await Promise.all(ids.map((id) => this.close(id, "key revoked")));
  }

  /** Closes sessions idle for longer than the limit, as of `now`. */
  async sweep(now = this.now()): Promise<void> {
    const idle = [...this.sessions.values()].filter((e) => e.busy === 0 && now - e.lastActive >= this.opts.idleMs);
    await Promise.all(idle.map((e) => this.close(e.session.id, "idle")));
  }

  /**
   * Shutdown: idle sessions close at once (their open streams would hold the HTTP server),
   * sessions with a tool call under way close when it finishes, or when `deadline` aborts.
   */
  async drain(deadline: AbortSignal): Promise<void> {
    clearInterval(this.sweepTimer);
    await Promise.all(
      [...this.sessions.values()].map(async (entry) => {
        if (entry.busy > 0 && !deadline.aborted) {
          await new Promise<void>((resolve) => {
            entry.onIdle = resolve;
            deadline.addEventListener("abort", () => resolve(), { once: true });
          });
        }
        await this.close(entry.session.id, "shutdown");
      }),
    );
  }

  private async close(id: string, reason: string): Promise<void> {
    const entry = this.sessions.get(id);
    if (!entry) return;
    this.remove(id, reason);
    await entry.session.close().catch(() => {});
  }
}
