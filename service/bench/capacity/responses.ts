/**
 * Capacity dimension "stored responses": 10k → 100k → 1M rows, copies of a response the service
 * stored itself (ids rewritten), written by generate_series in the server. Nine in ten are live,
 * in chains of nine turns linked by previous_response_id; one in ten is past the retention, written
 * before the others of its fill as the oldest rows of a table are.
 * Timed: GET /v1/responses/{id}, POST /v1/responses continuing a nine-turn chain (the
 * conversation rebuilt from the store), and the retention sweep's delete of 100 expired rows.
 */
import { openStore } from "../../src/store/open.js";
import { ResponseStore } from "../../src/domain/responses/response-store.js";
import { Caller } from "./http.js";
import { printCurve, type Point } from "./curve.js";
import { measurePoint, relationMb, settleTables, startOnScratchDatabase } from "./store-service.js";

const MODEL = "agentport/synthetic-20";
const idOf = (i: number) => `resp_bench${String(i).padStart(10, "0")}`;
const ID_SQL = (n: string) => `'resp_bench' || lpad((${n})::text, 10, '0')`;

export async function run(sizes: number[], samples: number): Promise<boolean> {
  const s = await startOnScratchDatabase([{ id: "synthetic-20", kind: "synthetic", tokens: 20 }]);
  const caller = new Caller(s.service.url);
  const db = await openStore({ databaseUrl: s.databaseUrl });
  const sweep = new ResponseStore(db, { retentionDays: 30 });
  const curves = { get: [] as Point[], chain: [] as Point[], sweep: [] as Point[] };
  let stored = 0;
  try {
    const template = JSON.parse(await caller.call("/v1/responses", s.key, { model: MODEL, input: "Hello" })) as {
      id: string;
    };
    for (const size of sizes) {
      // Row i: expired when i % 10 = 0; otherwise live, continuing row i - 1 unless it starts a chain (i % 10 = 1).
      // The expired rows are written first, as the oldest rows of a real table lie together in its
      // heap (rows expire in the order they were written): spread one in ten over the heap, each
      // sweep of 100 read 100 pages, which outgrew the buffers with the table (growth 0.31).
      await s.sql.query(
        `INSERT INTO responses (id, project_id, previous_response_id, created_at, input_items, response, bytes)
         SELECT ${ID_SQL("i")}, 'default', CASE WHEN i % 10 > 1 THEN ${ID_SQL("i - 1")} END,
                CASE WHEN i % 10 = 0 THEN now() - interval '31 days' ELSE now() END,
                t.input_items, replace(t.response, $3, ${ID_SQL("i")}), t.bytes
           FROM responses t, generate_series($1::int, $2::int) AS i WHERE t.id = $3
          ORDER BY i % 10 <> 0, i`,
        [stored + 1, size, template.id],
      );
      stored = size;
      await settleTables(s.sql);
      const live = (i: number) => {
        const n = 1 + ((Math.abs(i) * 7919) % size);
        return n % 10 === 0 ? n - 1 : n;
      };
      const chainEnd = (i: number) => 10 * ((Math.abs(i) * 7919) % Math.floor(size / 10)) + 9;
      curves.get.push(
        await measurePoint(s, size, samples, (i) => caller.call(`/v1/responses/${idOf(live(i))}`, s.key)),
      );
      curves.chain.push(
        await measurePoint(s, size, samples, (i) =>
          caller.call("/v1/responses", s.key, {
            model: MODEL,
            input: "And then?",
            previous_response_id: idOf(chainEnd(i)),
            store: false,
          }),
        ),
      );
      // The expired rows are a tenth, each deleted once (one round); the service's own sweep may take some too.
      const batches = Math.max(1, Math.min(samples, Math.floor(size / 10 / 100) - 2));
      curves.sweep.push(await measurePoint(s, size, batches, () => sweep.deleteExpired(100), { warmup: 1, rounds: 1 }));
      console.log(
        `    (${size} responses: the table ${(await relationMb(s.sql, "responses")).toFixed(0)} MB with its indexes)`,
      );
    }
  } finally {
    await db.close();
    await caller.close();
    await s.stop();
  }
  const a = printCurve("GET /v1/responses/{id}", "responses", curves.get, "the service's RSS");
  const b = printCurve("POST /v1/responses continuing a 9-turn chain", "responses", curves.chain, "the service's RSS");
  const c = printCurve(
    "retention sweep, one delete of 100 expired rows",
    "responses",
    curves.sweep,
    "the service's RSS",
  );
  return a && b && c;
}
