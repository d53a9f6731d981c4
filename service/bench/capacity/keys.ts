/**
 * Capacity dimension "API keys in the store": 1k → 100k → 1M keys of one project, written by
 * generate_series in the server (secrets derived from the row number, so the bench knows them).
 * GET /v1/models timed with a key this replica has never seen (the key check asks the store:
 * cold cache) and with keys it has just verified (warm cache: no query).
 */
import { Caller } from "./http.js";
import { printCurve, type Point } from "./curve.js";
import { measurePoint, relationMb, settleTables, startOnScratchDatabase } from "./store-service.js";

/** The secret of generated key `i`: a well-formed one (prefix, ≥ 40 characters). */
const secretOf = (i: number) => `ap-bench-${String(i).padStart(40, "0")}`;
const SECRET_SQL = "'ap-bench-' || lpad(i::text, 40, '0')";
/** Rounds of cold checks: 4 × 200 and the warm-up fit in the first fill's 1,000 keys, each used once. */
const COLD_ROUNDS = 4;

export async function run(sizes: number[], samples: number): Promise<boolean> {
  const s = await startOnScratchDatabase([{ id: "synthetic-20", kind: "synthetic", tokens: 20 }]);
  const caller = new Caller(s.service.url);
  const cold: Point[] = [];
  const warm: Point[] = [];
  let stored = 0;
  try {
    for (const size of sizes) {
      await s.sql.query(
        `INSERT INTO api_keys (id, project_id, name, secret_hash, redacted, created_by)
         SELECT 'key_bench_' || i, 'default', 'bench ' || i, sha256(convert_to(${SECRET_SQL}, 'UTF8')), 'ap-…' || right(i::text, 4), 'bench'
           FROM generate_series($1::int, $2::int) AS i`,
        [stored + 1, size],
      );
      const fresh = size - stored; // the rows this fill added: none used yet
      const before = stored;
      stored = size;
      await settleTables(s.sql);
      // Keys this fill added, each used once (warm-up included): every check is a store lookup.
      const measured = COLD_ROUNDS * samples;
      const step = Math.max(1, Math.floor(fresh / (measured + 10)));
      const coldKey = (i: number) => secretOf(before + 1 + (((i < 0 ? measured - 1 - i : i) * step) % fresh));
      cold.push(
        await measurePoint(s, size, samples, (i) => caller.call("/v1/models", coldKey(i)), { rounds: COLD_ROUNDS }),
      );
      const recent = Array.from({ length: 50 }, (_, i) => secretOf(1 + ((i * step) % size)));
      for (const k of recent) await caller.call("/v1/models", k);
      warm.push(
        await measurePoint(s, size, samples, (i) => caller.call("/v1/models", recent[Math.abs(i) % recent.length])),
      );
      console.log(
        `    (${size} keys: api_keys ${(await relationMb(s.sql, "api_keys")).toFixed(1)} MB with its indexes)`,
      );
    }
  } finally {
    await caller.close();
    await s.stop();
  }
  const a = printCurve("API keys, GET /v1/models with a key not cached (cold)", "keys", cold, "the service's RSS");
  const b = printCurve("API keys, GET /v1/models with a cached key (warm)", "keys", warm, "the service's RSS");
  return a && b;
}
