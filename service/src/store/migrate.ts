/**
 * Applies the SQL files in ./migrations in name order, each once, all in one transaction: a
 * replica that fails halfway leaves the schema as it found it. The transaction takes an advisory
 * lock first, so two replicas starting together apply them once; the lock is the transaction's
 * (`pg_advisory_xact_lock`), so it ends with it on the same connection. A session-level lock taken
 * and released through a pool could be released on another pooled connection and stay held.
 *
 * Its statements run under their own timeout, not the query timeout (15 s) every request's query
 * has: a backfill over a long-lived store's rows (migration 013 sums every usage minute row: 7.8 s
 * at 10M rows on a quiet 2-core server) must not fail the upgrade, on every restart alike, because
 * the store grew. It stays under the start's own bound (PLUGIN_START_TIMEOUT_MS, 120 s, as the
 * pod's startup probe) so a statement that does hang ends with an error the log names. A replica
 * waiting for another's migrations waits as long.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Db } from "./db.js";

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), "migrations");
export const MIGRATION_LOCK_ID = 7_340_221; // arbitrary, fixed: "agentport migrations"
/** Each migration statement's bound (see above). */
export const MIGRATION_STATEMENT_TIMEOUT_MS = 100_000;

export function migrationFiles(): string[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith(".sql"))
    .sort();
}

/** `through`: the last migration to apply (a test builds a schema as an older release left it); default all. */
export async function migrate(db: Db, through?: string): Promise<string[]> {
  return db.transaction(
    async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_ID]);
      await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
      const done = new Set(
        (await tx.query<{ name: string }>("SELECT name FROM schema_migrations")).rows.map((r) => r.name),
      );
      const applied: string[] = [];
      for (const name of migrationFiles()) {
        if (done.has(name) || (through !== undefined && name > through)) continue;
        const sql = readFileSync(join(MIGRATIONS_DIR, name), "utf8");
        for (const statement of splitStatements(sql)) await tx.query(statement);
        await tx.query("INSERT INTO schema_migrations (name) VALUES ($1)", [name]);
        applied.push(name);
      }
      return applied;
    },
    { statementTimeoutMs: MIGRATION_STATEMENT_TIMEOUT_MS },
  );
}

/** Splits on semicolons at line ends; migrations keep one statement per `;`-terminated block. */
function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*(?:\r?\n|$)/)
    .map((s) => s.replace(/^\s*--.*$/gm, "").trim())
    .filter(Boolean);
}
