/**
 * API keys: created with a secret shown once, stored as a SHA-256 hash, verified in constant time.
 *
 * Verification is on every request, so verified keys are cached in memory; a delete removes the
 * row and NOTIFYs every replica in the same transaction, and each evicts at once (the deleting one
 * synchronously). The cache is trusted only while the store says notifications are live: while
 * the listening connection is down or silent, every check goes to the store (and fails with it),
 * and the cache is dropped when the connection goes and again when it comes back, so a missed
 * NOTIFY can never keep a key alive.
 * "Last used" is collected in memory and written in one statement every few seconds.
 */
import { createHash, hash as oneShotHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Db } from "../store/db.js";

export const KEY_PREFIX = "ap-";
const REVOKED_CHANNEL = "agentport_api_key_revoked";
const LAST_USED_FLUSH_MS = 5_000;
/** Refused secrets remembered, so a flood of bad keys does not become a flood of queries. */
const REFUSED_CACHE_MAX = 10_000;

export interface ApiKeyRecord {
  id: string;
  projectId: string;
  name: string;
  /** Short redacted hint such as `ap-…x7Qz`; never the secret. */
  redacted: string;
  createdBy: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** After this the key is refused like a revoked one; null: never. */
  expiresAt: Date | null;
  /** Requests per minute allowed to this key; null: the deployment's default. */
  rateLimitRpm: number | null;
  /** Tokens per minute allowed to this key; null: the deployment's default. */
  rateLimitTpm: number | null;
  /** This key's own budget (micro-dollars per period); null: none (its project's still applies). */
  budget: KeyBudget | null;
}

/** A key's budget: a limit in micro-dollars per period (`30d`, `1mo`, `total`), its periods counted from the key's creation. */
export interface KeyBudget {
  limitMicros: number;
  period: string;
}

/** Who a verified key speaks for. */
export interface ApiKeyPrincipal {
  keyId: string;
  projectId: string;
  keyName: string;
  /** Epoch ms after which the key is refused; undefined: never. */
  expiresAtMs?: number;
  /** This key's own requests-per-minute limit; undefined: the deployment's default. */
  rpm?: number;
  /** This key's own tokens-per-minute limit; undefined: the deployment's default. */
  tpm?: number;
  /** This key's own budget, and when the key was made (its periods' anchor, epoch ms). */
  budget?: KeyBudget;
  createdAtMs?: number;
}

interface Row {
  id: string;
  project_id: string;
  name: string;
  redacted: string;
  created_by: string;
  created_at: Date | string;
  last_used_at: Date | string | null;
  expires_at: Date | string | null;
  rate_limit_rpm: number | null;
  rate_limit_tpm: number | null;
  budget_micro_usd: string | number | null;
  budget_period: string | null;
  secret_hash?: Uint8Array;
}

const hashSecret = (secret: string) => createHash("sha256").update(secret).digest();
// One-shot hash: the key check runs on every request, and a Hash object costs several times more.
const digestOf = (secret: string) => oneShotHash("sha256", secret, "base64");
export const redact = (secret: string) => `${KEY_PREFIX}…${secret.slice(-4)}`;
/** Looks like one of our secrets; anything else is refused without a lookup. */
const wellFormed = (secret: string) => secret.startsWith(KEY_PREFIX) && secret.length >= 40 && secret.length <= 128;

function toRecord(r: Row): ApiKeyRecord {
  return {
    id: r.id,
    projectId: r.project_id,
    name: r.name,
    redacted: r.redacted,
    createdBy: r.created_by,
    createdAt: new Date(r.created_at),
    lastUsedAt: r.last_used_at === null ? null : new Date(r.last_used_at),
    expiresAt: r.expires_at === null ? null : new Date(r.expires_at),
    rateLimitRpm: r.rate_limit_rpm,
    rateLimitTpm: r.rate_limit_tpm,
    budget: budgetOf(r),
  };
}

function budgetOf(r: Pick<Row, "budget_micro_usd" | "budget_period">): KeyBudget | null {
  return r.budget_micro_usd === null || r.budget_period === null
    ? null
    : { limitMicros: Number(r.budget_micro_usd), period: r.budget_period };
}

const COLUMNS =
  "id, project_id, name, redacted, created_by, created_at, last_used_at, expires_at, rate_limit_rpm, rate_limit_tpm, budget_micro_usd, budget_period";

export class ApiKeys {
  /**
   * base64(sha256(secret)) → principal, for keys verified since the last reset. Keyed by digest,
   * not by secret, so no secret stays in memory beyond the request that carried it.
   */
  private readonly verified = new Map<string, ApiKeyPrincipal>();
  /**
   * Store lookups under way, by secret digest, with the eviction count each began at and the one
   * to follow it for checks that may not join it (see verify).
   */
  private readonly lookups = new Map<
    string,
    { evictions: number; result: Promise<ApiKeyPrincipal | undefined>; next?: Promise<ApiKeyPrincipal | undefined> }
  >();
  /**
   * Hashes of secrets that matched no key. Safe to remember: a new key always gets a fresh random
   * secret, so a refused secret can never become valid later.
   */
  private readonly refused = new Set<string>();
  /** Bumped on every eviction: a lookup that raced a revocation must not cache what it read. */
  private evictions = 0;
  /** keyId → epoch ms of its latest use not yet written. */
  private readonly usedSinceFlush = new Map<string, number>();
  /** Revocation notifications heard from the store (each replica's deletes included), for /metrics. */
  notificationsReceived = 0;
  private readonly revokeListeners = new Set<(keyId: string) => void>();
  private readonly resyncListeners = new Set<() => void>();
  private flushTimer?: NodeJS.Timeout;
  private unlisten?: () => Promise<void>;

  private readonly db: Db;
  /** The clock, in epoch ms (expiry, "last used"): tests move it. */
  private readonly now: () => number;
  constructor(db: Db, now: () => number = () => Date.now()) {
    this.db = db;
    this.now = now;
  }

  async start(): Promise<void> {
    this.unlisten = await this.db.listen(
      REVOKED_CHANNEL,
      (keyId) => {
        this.notificationsReceived++;
        this.evict(keyId);
      },
      () => {
        this.evictions++;
        this.verified.clear();
        for (const fn of this.resyncListeners) fn();
      },
    );
    this.flushTimer = setInterval(() => void this.flushLastUsed().catch(() => {}), LAST_USED_FLUSH_MS);
    this.flushTimer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.flushTimer);
    await this.unlisten?.().catch(() => {}); // the store may already be gone
    await this.flushLastUsed().catch(() => {});
  }

  /** Runs `fn` whenever a key is revoked on any replica (open MCP sessions close on it). */
  onRevoked(fn: (keyId: string) => void): () => void {
    this.revokeListeners.add(fn);
    return () => this.revokeListeners.delete(fn);
  }

  /**
   * Runs `fn` when revocations may have been missed (the store's listener dropped or came back):
   * holders of long-lived sessions re-check their keys with `exists`.
   */
  onResync(fn: () => void): () => void {
    this.resyncListeners.add(fn);
    return () => this.resyncListeners.delete(fn);
  }

  /** Whether the key still exists (not revoked), asked of the store. */
  async exists(keyId: string): Promise<boolean> {
    return (await this.db.query("SELECT 1 FROM api_keys WHERE id = $1", [keyId])).rowCount > 0;
  }

  async create(input: {
    projectId: string;
    name: string;
    createdBy: string;
    expiresAt?: Date;
    rateLimitRpm?: number;
    rateLimitTpm?: number;
    budget?: KeyBudget;
  }): Promise<{ record: ApiKeyRecord; secret: string }> {
    const secret = KEY_PREFIX + randomBytes(32).toString("base64url");
    const id = "key_" + randomBytes(12).toString("base64url");
    const { rows } = await this.db.query<Row>(
      `INSERT INTO api_keys (id, project_id, name, secret_hash, redacted, created_by, expires_at, rate_limit_rpm, rate_limit_tpm,
         budget_micro_usd, budget_period)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${COLUMNS}`,
      [
        id,
        input.projectId,
        input.name,
        hashSecret(secret),
        redact(secret),
        input.createdBy,
        input.expiresAt?.toISOString() ?? null,
        input.rateLimitRpm ?? null,
        input.rateLimitTpm ?? null,
        input.budget?.limitMicros ?? null,
        input.budget?.period ?? null,
      ],
    );
    return { record: toRecord(rows[0]), secret };
  }

  /** Keys of a project, oldest first, paged by id after `after`. */
  async list(
    projectId: string,
    opts: { after?: string; limit?: number } = {},
  ): Promise<{ data: ApiKeyRecord[]; hasMore: boolean }> {
    const limit = opts.limit ?? 100;
    const params: unknown[] = [projectId, limit + 1];
    let cursor = "";
    if (opts.after) {
      params.push(opts.after);
      cursor = `AND (created_at, id) > (SELECT created_at, id FROM api_keys WHERE id = $3 AND project_id = $1)`;
    }
    const { rows } = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM api_keys WHERE project_id = $1 ${cursor} ORDER BY created_at, id LIMIT $2`,
      params,
    );
    this.mergePendingLastUsed(rows);
    return { data: rows.slice(0, limit).map(toRecord), hasMore: rows.length > limit };
  }

  async get(projectId: string, id: string): Promise<ApiKeyRecord | undefined> {
    const { rows } = await this.db.query<Row>(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1 AND project_id = $2`, [
      id,
      projectId,
    ]);
    this.mergePendingLastUsed(rows);
    return rows[0] && toRecord(rows[0]);
  }

  /** Revokes: the row goes, and every replica forgets the key before the next request. */
  async delete(projectId: string, id: string): Promise<boolean> {
    // NOTIFY is transactional: the other replicas hear of the delete exactly when it commits, and
    // a failure of either leaves the key in place and valid everywhere (all or nothing).
    const deleted = await this.db.transaction(async (tx) => {
      const { rowCount } = await tx.query("DELETE FROM api_keys WHERE id = $1 AND project_id = $2", [id, projectId]);
      if (rowCount > 0) await tx.query("SELECT pg_notify($1, $2)", [REVOKED_CHANNEL, id]);
      return rowCount > 0;
    });
    if (!deleted) return false;
    this.evict(id);
    this.usedSinceFlush.delete(id);
    return true;
  }

  /**
   * The principal for a presented secret when the answer is known without the store: a cached
   * principal, `null` for a secret known to be refused, `undefined` when the store must be asked.
   * Records the use for "last used". Synchronous so the auth hook costs no promise on a hit.
   */
  verifyCached(secret: string): ApiKeyPrincipal | null | undefined {
    if (!wellFormed(secret)) return null;
    const digest = digestOf(secret);
    // Without live notifications a cached key may have been revoked elsewhere: ask the store.
    const principal = this.db.notificationsLive() ? this.verified.get(digest) : undefined;
    // Expiry is checked here on every request, by each replica's own clock: no notification needed.
    if (principal?.expiresAtMs !== undefined && principal.expiresAtMs <= this.now()) {
      this.verified.delete(digest);
      this.remember(digest);
      return null;
    }
    if (principal) {
      this.usedSinceFlush.set(principal.keyId, this.now());
      return principal;
    }
    return this.refused.has(digest) ? null : undefined;
  }

  /** The principal for a presented secret, or undefined. Records the use for "last used". */
  async verify(secret: string): Promise<ApiKeyPrincipal | undefined> {
    const cached = this.verifyCached(secret);
    if (cached !== undefined) return cached ?? undefined;
    const hash = hashSecret(secret);
    const digest = hash.toString("base64");
    // A burst of requests with one key not cached yet (a replica just started, a cache just
    // dropped) makes one query, not one each. A request joins only a lookup that began after the
    // last eviction and while notifications are live — the cases where the cache itself would
    // answer — so a revocation is never answered by a read from before it.
    const running = this.lookups.get(digest);
    if (running && running.evictions === this.evictions) {
      if (this.db.notificationsLive()) return running.result;
      // Not live: a read from before this request must not answer it, but one that starts once the
      // running lookup ends starts after it arrived. The checks arriving meanwhile share that one:
      // a burst while the listener lags (a busy event loop) once queued a query each for the pool
      // and its wait answered 503s.
      running.next ??= running.result.catch(() => undefined).then(() => this.startLookup(hash, digest));
      return running.next;
    }
    return this.startLookup(hash, digest);
  }

  /** A store lookup of the secret, registered so that checks arriving while it runs can share it. */
  private startLookup(hash: Buffer, digest: string): Promise<ApiKeyPrincipal | undefined> {
    const result = this.lookup(hash, digest).finally(() => {
      if (this.lookups.get(digest)?.result === result) this.lookups.delete(digest);
    });
    this.lookups.set(digest, { evictions: this.evictions, result });
    return result;
  }

  private async lookup(hash: Buffer, digest: string): Promise<ApiKeyPrincipal | undefined> {
    const evictionsBefore = this.evictions;
    const { rows } = await this.db.query<Row>(
      "SELECT id, project_id, name, secret_hash, created_at, expires_at, rate_limit_rpm, rate_limit_tpm, budget_micro_usd, budget_period FROM api_keys WHERE secret_hash = $1",
      [hash],
    );
    const row = rows[0];
    const expiresAtMs = row?.expires_at ? new Date(row.expires_at).getTime() : undefined;
    if (
      !row?.secret_hash ||
      !timingSafeEqual(Buffer.from(row.secret_hash), hash) ||
      (expiresAtMs !== undefined && expiresAtMs <= this.now())
    ) {
      this.remember(digest);
      return undefined;
    }
    const principal: ApiKeyPrincipal = Object.freeze({
      keyId: row.id,
      projectId: row.project_id,
      keyName: row.name,
      ...(expiresAtMs !== undefined && { expiresAtMs }),
      ...(row.rate_limit_rpm !== null && { rpm: row.rate_limit_rpm }),
      ...(row.rate_limit_tpm !== null && { tpm: row.rate_limit_tpm }),
      ...(budgetOf(row) && { budget: budgetOf(row)!, createdAtMs: new Date(row.created_at).getTime() }),
    });
    // Cache only what was read while notifications were live and no eviction raced the read.
    if (evictionsBefore === this.evictions && this.db.notificationsLive()) this.verified.set(digest, principal);
    this.usedSinceFlush.set(principal.keyId, this.now());
    return principal;
  }

  /** A secret that is refused for good (no such key, or an expired one: expiry never moves). */
  private remember(digest: string): void {
    if (this.refused.size >= REFUSED_CACHE_MAX) this.refused.clear();
    this.refused.add(digest);
  }

  /** Writes the collected "last used" times in one statement. */
  async flushLastUsed(): Promise<void> {
    if (this.usedSinceFlush.size === 0) return;
    const ids = [...this.usedSinceFlush.keys()];
    const times = ids.map((id) => new Date(this.usedSinceFlush.get(id)!).toISOString());
    this.usedSinceFlush.clear();
    await this.db.query(
      `UPDATE api_keys k SET last_used_at = GREATEST(COALESCE(k.last_used_at, u.t), u.t)
       FROM (SELECT unnest($1::text[]) AS id, unnest($2::timestamptz[]) AS t) u WHERE k.id = u.id`,
      [ids, times],
    );
  }

  private evict(keyId: string): void {
    this.evictions++;
    for (const [cacheKey, p] of this.verified) if (p.keyId === keyId) this.verified.delete(cacheKey);
    for (const fn of this.revokeListeners) fn(keyId);
  }

  /** Reads show uses not yet flushed, so "last used" is never behind what this replica saw. */
  private mergePendingLastUsed(rows: Row[]): void {
    for (const r of rows) {
      const pending = this.usedSinceFlush.get(r.id);
      if (pending && (r.last_used_at === null || new Date(r.last_used_at).getTime() < pending))
        r.last_used_at = new Date(pending);
    }
  }
}
