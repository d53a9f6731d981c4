import { describe, expect, it } from "vitest";
import type { Db } from "../../../../../../service/src/store/db.js";
import { UsageMeter } from "../../../../../../service/src/domain/usage/usage-meter.js";

/** A store that keeps each write's rows: [project, key, model, minute, requests, in, out, in cost, out cost]. */
function recordingDb(): { db: Db; writes: unknown[][][] } {
  const writes: unknown[][][] = [];
  const db = {
    query: (_sql: string, params: unknown[][]) => {
      writes.push(params[0].map((_, row) => params.map((column) => column[row])));
      return Promise.resolve({ rows: [], rowCount: 0 });
    },
  } as unknown as Db;
  return { db, writes };
}

describe("the usage meter's sums", () => {
  const at = Date.UTC(2026, 0, 1, 12, 30, 15);
  const use = (keyId: string, model = "m", projectId = "p") => ({
    projectId,
    keyId,
    model,
    inputTokens: 10,
    outputTokens: 5,
    inputCost: 3,
    outputCost: 1,
  });

  it("adds each request to its own row, however the rows alternate", async () => {
    const { db, writes } = recordingDb();
    const meter = new UsageMeter(db);
    meter.record(use("a"), at);
    meter.record(use("b"), at);
    meter.record(use("a"), at + 1000);
    meter.record(use("a", "n"), at);
    meter.record(use("a", "m", "q"), at);
    meter.record(use("a"), at + 60_000); // the next minute
    meter.record(use("a"), at);
    await meter.flush();
    const minute = new Date(at - (at % 60_000)).toISOString();
    const next = new Date(at - (at % 60_000) + 60_000).toISOString();
    expect(writes).toEqual([
      [
        ["p", "a", "m", minute, 3, 30, 15, 9, 3],
        ["p", "b", "m", minute, 1, 10, 5, 3, 1],
        ["p", "a", "n", minute, 1, 10, 5, 3, 1],
        ["q", "a", "m", minute, 1, 10, 5, 3, 1],
        ["p", "a", "m", next, 1, 10, 5, 3, 1],
      ],
    ]);
  });

  it("starts a row afresh after a write took it: nothing recorded after a flush is lost", async () => {
    const { db, writes } = recordingDb();
    const meter = new UsageMeter(db);
    meter.record(use("a"), at);
    meter.record(use("a"), at);
    await meter.flush();
    meter.record(use("a"), at);
    await meter.flush();
    await meter.flush(); // nothing pending: no write
    expect(writes.map((rows) => rows.map((row) => row[4]))).toEqual([[2], [1]]);
  });
});
