/**
 * Blobs that must go, recorded in the store before anything can forget them: an upload in
 * progress (due a day ahead, cleared when its file commits — so a crash mid-upload is cleaned
 * up later), and blobs of deleted files or failed uploads. A delete is tried at once; when it
 * fails the row stays and the sweeper retries with backoff, logging each failure.
 */
import type { BlobStore } from "../../blobs/blob-store.js";
import type { Db, Queryable } from "../../store/db.js";

/** An upload still running this long after it started belongs to a dead process. */
const UPLOAD_HORIZON = "1 day";
/** A claimed row is not claimed again for this long (another replica may be working on it). */
const CLAIM_LEASE = "10 minutes";
const MAX_BACKOFF_SECONDS = 3600;

export interface PendingDeletion {
  blobKey: string;
  reason: string;
  attempts: number;
  lastError: string | null;
}

export interface Logger {
  warn(obj: object, msg?: string): void;
}

export class BlobDeletions {
  private readonly db: Db;
  private readonly blobs: BlobStore;
  private readonly log: Logger;
  constructor(db: Db, blobs: BlobStore, log: Logger) {
    this.db = db;
    this.blobs = blobs;
    this.log = log;
  }

  /** Records an upload about to start: if the process dies, its blob is swept later. */
  async uploadStarted(key: string): Promise<void> {
    await this.db.query(
      `INSERT INTO blob_deletions (blob_key, reason, not_before) VALUES ($1, 'upload in progress', now() + interval '${UPLOAD_HORIZON}')`,
      [key],
    );
  }

  /** In the transaction that commits the file: the blob is now owned by its row. */
  async uploadCommitted(tx: Queryable, key: string): Promise<void> {
    await tx.query("DELETE FROM blob_deletions WHERE blob_key = $1", [key]);
  }

  /** In the transaction that deletes the file's row. */
  async schedule(tx: Queryable, key: string, reason: string): Promise<void> {
    await tx.query(
      `INSERT INTO blob_deletions (blob_key, reason, not_before) VALUES ($1, $2, now())
       ON CONFLICT (blob_key) DO UPDATE SET reason = EXCLUDED.reason, not_before = now()`,
      [key, reason],
    );
  }

  /** Deletes the blob now; on failure the row stays due for the sweeper. Never throws. */
  async remove(key: string, reason: string): Promise<boolean> {
    try {
      await this.blobs.delete(key);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.log.warn({ blobKey: key, reason, err: message }, "blob delete failed; will retry");
      await this.db
        .query(
          `INSERT INTO blob_deletions (blob_key, reason, not_before, attempts, last_error) VALUES ($1, $2, now(), 1, $3)
           ON CONFLICT (blob_key) DO UPDATE SET attempts = blob_deletions.attempts + 1, last_error = $3,
             not_before = now() + make_interval(secs => least(power(2, blob_deletions.attempts + 1), ${MAX_BACKOFF_SECONDS}))`,
          [key, reason, message.slice(0, 500)],
        )
        .catch((dbErr) => this.log.warn({ blobKey: key, err: String(dbErr) }, "could not record failed blob delete"));
      return false;
    }
    await this.db.query("DELETE FROM blob_deletions WHERE blob_key = $1", [key]).catch(() => {});
    return true;
  }

  /** Retries every due deletion once. A key a file still owns is dropped from the list, never deleted. */
  async sweep(batch = 100): Promise<{ deleted: number; failed: number }> {
    const { rows } = await this.db.query<{ blob_key: string; reason: string; owned: boolean }>(
      `UPDATE blob_deletions d SET not_before = now() + interval '${CLAIM_LEASE}'
       WHERE d.blob_key IN (SELECT blob_key FROM blob_deletions WHERE not_before <= now() ORDER BY not_before LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING d.blob_key, d.reason, EXISTS (SELECT 1 FROM files f WHERE f.blob_key = d.blob_key) AS owned`,
      [batch],
    );
    let deleted = 0;
    let failed = 0;
    for (const r of rows) {
      if (r.owned) {
        await this.db.query("DELETE FROM blob_deletions WHERE blob_key = $1", [r.blob_key]);
        continue;
      }
      if (await this.remove(r.blob_key, r.reason)) deleted++;
      else failed++;
    }
    return { deleted, failed };
  }

  async pending(): Promise<PendingDeletion[]> {
    const { rows } = await this.db.query<{
      blob_key: string;
      reason: string;
      attempts: number;
      last_error: string | null;
    }>("SELECT blob_key, reason, attempts, last_error FROM blob_deletions ORDER BY created_at");
    return rows.map((r) => ({ blobKey: r.blob_key, reason: r.reason, attempts: r.attempts, lastError: r.last_error }));
  }
}
