/**
 * The metadata store: PostgreSQL everywhere — PGlite embedded by default, a server with DATABASE_URL.
 * Domain modules see only this interface; both implementations run the same SQL and migrations.
 */

export interface QueryResult<T> {
  rows: T[];
  /** Rows inserted, updated or deleted (or returned, for SELECT). */
  rowCount: number;
}

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
}

export interface TransactionOptions {
  /**
   * How long each of its statements may run, in place of the store's query timeout (on a server:
   * its statement_timeout and the client's wait); the embedded store has no timeouts.
   */
  statementTimeoutMs?: number;
}

export interface Db extends Queryable {
  readonly kind: "pglite" | "postgres";
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, opts?: TransactionOptions): Promise<T>;
  /**
   * Subscribes to NOTIFY on `channel`. `onReset` runs when notifications may have been missed
   * (the listening connection dropped and came back), so callers can drop derived state.
   */
  listen(channel: string, onMessage: (payload: string) => void, onReset?: () => void): Promise<() => Promise<void>>;
  /**
   * Whether notifications are arriving right now (the listening connection answered within the
   * trust window): state derived from them, such as cached key checks, may be trusted only then.
   * Always true in-process (PGlite).
   */
  notificationsLive(): boolean;
  notify(channel: string, payload: string): Promise<void>;
  close(): Promise<void>;
}
