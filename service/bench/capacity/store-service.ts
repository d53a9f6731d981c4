/**
 * The production build on a throwaway database of the local PostgreSQL server, for the store
 * dimensions: the bench fills the tables directly (generate_series, in the server) and times the
 * service's HTTP answers. CPU per request counts the service process and the database backends
 * serving it (their /proc figures), since a query's cost is mostly the server's.
 */
import { rmSync, writeFileSync } from "node:fs";
import pg from "pg";
import { quantiles, timeEach, type Point } from "./curve.js";
import { createTestDatabase } from "../../../test/helpers/store.js";
import { signMemberToken } from "../../src/domain/member-token.js";
import {
  benchEnv,
  createKey,
  processCpuMicros,
  rssMb,
  startWarm,
  stopService,
  type RunningService,
} from "../lib/service-process.js";

/** Unmeasured calls before each point (negative indices): connections and plans warm, as in steady state. */
const WARMUP = 10;
const JWT_SECRET = "capacity-bench-".padEnd(64, "c");

export interface StoreService {
  service: RunningService;
  /** A client on the service's database, for filling tables and reading sizes. */
  sql: pg.Client;
  /** The throwaway database's connection string. */
  databaseUrl: string;
  /** An API key of the default project. */
  key: string;
  /** A member token (owner) of the default project. */
  memberToken(): Promise<string>;
  /** CPU µs used so far by the service and the database's backends (other than `sql`'s). */
  cpuMicros(): Promise<number>;
  rssMb(): number;
  stop(): Promise<void>;
}

/** /proc CPU of one process in µs; 0 once it has gone. */
function cpuOrZero(pid: number): number {
  try {
    return processCpuMicros(pid);
  } catch {
    return 0;
  }
}

export async function startOnScratchDatabase(agents: object[]): Promise<StoreService> {
  const db = await createTestDatabase();
  const env = benchEnv("built", "http://127.0.0.1:9/v1", db.url);
  delete env.DATABASE_SCHEMA; // the whole throwaway database is the service's
  Object.assign(env, { JWT_SECRET, RESPONSES_RETENTION_DAYS: "30" });
  writeFileSync(env.AGENTS_FILE, JSON.stringify({ agents }));
  const service = await startWarm("built", env);
  const sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  const database = new URL(db.url).pathname.slice(1);
  const key = createKey("built", env);
  return {
    service,
    sql,
    databaseUrl: db.url,
    key,
    memberToken: () =>
      signMemberToken({ userId: "bench", projectId: "default", role: "owner" }, JWT_SECRET, undefined, 3600),
    async cpuMicros() {
      const { rows } = await sql.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
        [database],
      );
      return cpuOrZero(service.child.pid!) + rows.reduce((s, r) => s + cpuOrZero(r.pid), 0);
    },
    rssMb: () => rssMb(service.child.pid!),
    async stop() {
      await sql.end().catch(() => {});
      await stopService(service);
      rmSync(env.DATA_DIR, { recursive: true, force: true });
      await db.drop();
    },
  };
}

/**
 * After a fill: the tables as autovacuum leaves them in steady state (statistics current, the
 * visibility map set). An ANALYZE alone left the vacuum of a fresh million rows to autovacuum,
 * which then ran during the timed requests: a point measured beside it read as growth.
 */
export async function settleTables(sql: pg.Client): Promise<void> {
  await sql.query("VACUUM (ANALYZE)");
}

/** The size on disk of a table with its indexes, in MB. */
export async function relationMb(sql: pg.Client, table: string): Promise<number> {
  const { rows } = await sql.query<{ b: string }>("SELECT pg_total_relation_size($1::regclass) AS b", [table]);
  return Number(rows[0].b) / 2 ** 20;
}

/**
 * Rounds each point is measured in: its p50 and p99 are the median round's, so one burst (a
 * checkpoint, a collection) moves one round, not the figure. With one round of 200, a point's p99
 * moved 2× between runs and decided the verdict.
 */
const ROUNDS = 5;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * `rounds` × `count` sequential calls of `fn` at one size (its index runs on across the rounds):
 * latency quantiles, CPU per call, the service's RSS after. CPU is "-" when it stayed under the
 * clock's 10 ms resolution.
 */
export async function measurePoint(
  s: StoreService,
  size: number,
  count: number,
  fn: (i: number) => Promise<unknown>,
  { warmup = WARMUP, rounds = ROUNDS }: { warmup?: number; rounds?: number } = {},
): Promise<Point> {
  const cpuBefore = await s.cpuMicros();
  const p50: number[] = [];
  const p99: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const sorted = await timeEach(count, async (i) => void (await fn(i < 0 ? i : r * count + i)), r ? 0 : warmup);
    const q = quantiles(sorted);
    p50.push(q.p50);
    p99.push(q.p99);
  }
  const cpu = (await s.cpuMicros()) - cpuBefore;
  return { size, p50: median(p50), p99: median(p99), cpuUs: cpu > 0 ? cpu / (count * rounds) : NaN, memMb: s.rssMb() };
}
