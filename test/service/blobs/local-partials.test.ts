import { mkdtempSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LocalBlobStore, STALE_PARTIAL_MS } from "../../../service/src/blobs/local.js";

describe("local blob store: leftovers of a process killed mid-write", () => {
  it("are removed at the next start, while a partial still being written stays", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentport-partials-"));
    const partials = join(dir, ".partial");
    await new LocalBlobStore(dir).init();
    // What SIGKILL mid-upload leaves: a partial nobody writes any more (last written long ago)…
    writeFileSync(join(partials, "file-dead.abc123"), Buffer.alloc(1024));
    const past = (Date.now() - STALE_PARTIAL_MS - 60_000) / 1000;
    utimesSync(join(partials, "file-dead.abc123"), past, past);
    // …and one another writer is filling right now.
    writeFileSync(join(partials, "file-live.def456"), Buffer.alloc(1024));

    const store = new LocalBlobStore(dir);
    await store.init();
    expect(readdirSync(partials)).toEqual(["file-live.def456"]);
    expect(await store.sweepPartials()).toBe(0);
    expect(STALE_PARTIAL_MS).toBeLessThanOrEqual(10 * 60 * 1000); // minutes, not a day
  });
});
