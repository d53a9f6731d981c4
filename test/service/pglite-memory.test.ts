import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openPglite } from "../../service/src/store/pglite.js";

// The embedded store's shared buffers are resident in the service's own RSS: sized for one session.
describe("the embedded store's memory settings", () => {
  const root = mkdtempSync(join(tmpdir(), "agentport-pglite-memory-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  for (const [where, dir] of [
    ["persisted in a data dir", join(root, "pg")],
    ["in memory", undefined],
  ] as const) {
    it(`runs with 8 MB of shared buffers, not PostgreSQL's 128 MB, ${where}`, async () => {
      const db = await openPglite(dir);
      try {
        const { rows } = await db.query<{ shared_buffers: string }>("SHOW shared_buffers");
        expect(rows[0].shared_buffers).toBe("8MB");
        // The other start parameters PGlite needs are kept (its own defaults).
        const { rows: path } = await db.query<{ search_path: string }>("SHOW search_path");
        expect(path[0].search_path).toBe("public");
      } finally {
        await db.close();
      }
    });
  }
});
