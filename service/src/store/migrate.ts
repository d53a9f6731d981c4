/**
 * Applies the SQL files in ./migrations in name order, each once, each in its own transaction.
 * An advisory lock keeps two replicas starting together from racing.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Db } from "./db.js";

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), "migrations");
const LOCK_ID = 7_340_221; // arbitrary, fixed: "agentport migrations"

export function migrationFiles(): string[] {
  return readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith(".sql")).sort();
}

export async function migrate(db: Db): Promise<string[]> {
  await db.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
    name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
  await db.query("SELECT pg_advisory_lock($1)", [LOCK_ID]);
  try {
    const done = new Set((await db.query<{ name: string }>("SELECT name FROM schema_migrations")).rows.map((r) => r.name));
    const applied: string[] = [];
    for (const name of migrationFiles()) {
      if (done.has(name)) continue;
      const sql = readFileSync(join(MIGRATIONS_DIR, name), "utf8");
      await db.transaction(async (tx) => {
        for (const statement of splitStatements(sql)) await tx.query(statement);
        await tx.query("INSERT INTO schema_migrations (name) VALUES ($1)", [name]);
      });
      applied.push(name);
    }
    return applied;
  } finally {
    await db.query("SELECT pg_advisory_unlock($1)", [LOCK_ID]);
  }
}

/** Splits on semicolons at line ends; migrations keep one statement per `;`-terminated block. */
function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*(?:\r?\n|$)/)
    .map((s) => s.replace(/^\s*--.*$/gm, "").trim())
    .filter(Boolean);
}
