/**
 * The one dedicated connection that LISTENs for a PostgreSQL store. It reconnects with capped
 * backoff for as long as the process lives and proves itself alive with a periodic round trip;
 * `live()` says whether state derived from notifications (the key cache) may be trusted right now.
 */
import pg from "pg";

export interface ListenerOptions {
  /** How often the listener proves its connection alive with a round trip. */
  checkMs: number;
  /** How long after its last proof of life the listener's notifications are trusted. */
  trustMs: number;
  log?: (msg: string) => void;
}

const BACKOFF_FIRST_MS = 250;
const BACKOFF_MAX_MS = 5_000;

type Subscription = { onMessage: (p: string) => void; onReset?: () => void };

export class PostgresListener {
  private readonly subscriptions = new Map<string, Subscription>();
  private client: pg.Client | undefined;
  private lastAlive = 0;
  private closed = false;
  private backoff = BACKOFF_FIRST_MS;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private connecting: Promise<void> | undefined;
  private readonly checker: NodeJS.Timeout;
  private readonly clientConfig: pg.ClientConfig;
  private readonly opts: ListenerOptions;

  /** `clientConfig` is the pool's: the listener connects where and how queries do. */
  constructor(clientConfig: pg.ClientConfig, opts: ListenerOptions) {
    this.clientConfig = clientConfig;
    this.opts = opts;
    this.checker = setInterval(() => this.checkAlive(), opts.checkMs);
    this.checker.unref();
  }

  async listen(
    channel: string,
    onMessage: (payload: string) => void,
    onReset?: () => void,
  ): Promise<() => Promise<void>> {
    this.subscriptions.set(channel, { onMessage, onReset });
    if (this.client) await this.client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    else await this.connect();
    return async () => {
      this.subscriptions.delete(channel);
      await this.client?.query(`UNLISTEN ${pg.escapeIdentifier(channel)}`).catch(() => {});
    };
  }

  live(): boolean {
    return this.client !== undefined && Date.now() - this.lastAlive <= this.opts.trustMs;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.checker);
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = undefined;
    client?.removeAllListeners("end");
    await client?.end().catch(() => {});
  }

  private resetAll(): void {
    for (const s of this.subscriptions.values()) s.onReset?.();
  }

  /** The listening connection is gone (error, end, or no answer): forget it and try again. */
  private drop(client: pg.Client, why: string): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.lastAlive = 0;
    this.opts.log?.(`postgres listener lost (${why}); reconnecting`);
    client.removeAllListeners("notification");
    client.end().catch(() => {});
    // Notifications sent while we are away are lost: every subscriber drops what it derived.
    this.resetAll();
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer || this.connecting) return;
    const delay = this.backoff / 2 + Math.random() * (this.backoff / 2);
    this.backoff = Math.min(this.backoff * 2, BACKOFF_MAX_MS);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connect().catch((err: Error) => {
        this.opts.log?.(`postgres listener: reconnect failed (${err.message})`);
        this.scheduleReconnect();
      });
    }, delay);
    this.reconnectTimer.unref();
  }

  private connect(): Promise<void> {
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(): Promise<void> {
    // Named, so an operator can find it in pg_stat_activity.
    const client = new pg.Client({ ...this.clientConfig, application_name: "agentport-listener" });
    client.on("notification", (n) => this.subscriptions.get(n.channel)?.onMessage(n.payload ?? ""));
    client.on("error", (err) => this.drop(client, err.message));
    client.on("end", () => this.drop(client, "connection ended"));
    try {
      await client.connect();
      for (const channel of this.subscriptions.keys()) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (err) {
      client.removeAllListeners("end");
      client.end().catch(() => {});
      throw err;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.lastAlive = Date.now();
    this.backoff = BACKOFF_FIRST_MS;
    // Anything cached while we were away was read without a listener: start clean.
    this.resetAll();
  }

  /**
   * Proof of life: a silent partition leaves the socket open and nothing arriving; only a
   * round trip tells. A check that does not answer within the trust window drops the listener.
   */
  private checkAlive(): void {
    const client = this.client;
    if (!client) return;
    const timeout = setTimeout(() => this.drop(client, "no answer to the liveness check"), this.opts.trustMs);
    client.query("SELECT 1").then(
      () => {
        clearTimeout(timeout);
        if (this.client === client) this.lastAlive = Date.now();
      },
      (err: Error) => {
        clearTimeout(timeout);
        this.drop(client, err.message);
      },
    );
  }
}
