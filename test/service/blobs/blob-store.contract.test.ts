/** One contract, three backends: every blob store behaves the same to the files module. */
import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BlobNotFoundError, type BlobStore } from "../../../service/src/blobs/blob-store.js";
import { createBlobStore } from "../../../service/src/blobs/create.js";
import { loadConfig } from "../../../service/src/config.js";
import { BLOB_KINDS, startBlobBackend, type Emulator } from "../../helpers/blob-emulators.js";

/** A body that yields `head`, then fails: a client or disk going away mid-write. */
function failingBody(head: Buffer): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (!sent) {
        sent = true;
        this.push(head);
      } else {
        this.destroy(new Error("source failed"));
      }
    },
  });
}

/** A body that yields `head` and then waits for more, forever. */
function stalledBody(head: Buffer): Readable {
  const r = new Readable({ read() {} });
  r.push(head);
  return r;
}

describe.each(BLOB_KINDS)("blob store contract (%s)", (kind) => {
  let backend: Emulator;
  let store: BlobStore;
  beforeAll(async () => {
    backend = await startBlobBackend(kind);
    store = await createBlobStore(
      loadConfig({ DATA_DIR: "/nonexistent", JWT_SECRET: "x".repeat(64), ...backend.env("contract") }).blob,
    );
    await store.init();
  });
  afterAll(async () => {
    await store?.close();
    await backend?.stop();
  });

  it("puts a streamed body and gets back exactly its bytes, whole or by range", async () => {
    // Larger than one S3 part and one Azure block, so multi-part paths run too.
    const bytes = randomBytes(9 * 1024 * 1024 + 123);
    const { size } = await store.put("whole", Readable.from([bytes.subarray(0, 5_000_000), bytes.subarray(5_000_000)]));
    expect(size).toBe(bytes.length);
    expect((await buffer(await store.get("whole"))).equals(bytes)).toBe(true);
    const part = await buffer(await store.get("whole", { start: 100, end: 5_000_099 }));
    expect(part.equals(bytes.subarray(100, 5_000_100))).toBe(true);
    expect(await store.exists("whole")).toBe(true);
    expect(await store.list()).toContain("whole");
  });

  it("stores an empty body and a small one", async () => {
    expect((await store.put("empty", Readable.from([]))).size).toBe(0);
    expect((await buffer(await store.get("empty"))).length).toBe(0);
    expect((await store.put("small", Readable.from([Buffer.from("hello")]))).size).toBe(5);
    expect((await buffer(await store.get("small"))).toString()).toBe("hello");
  });

  it("a body that fails mid-write leaves no blob", async () => {
    await expect(store.put("failed", failingBody(randomBytes(6 * 1024 * 1024)))).rejects.toThrow();
    expect(await store.exists("failed")).toBe(false);
    expect(await store.list()).not.toContain("failed");
  });

  it("an aborted write rejects and leaves no blob", async () => {
    const ac = new AbortController();
    const putting = store.put("aborted", stalledBody(randomBytes(1024 * 1024)), { signal: ac.signal });
    setImmediate(() => ac.abort(new Error("client went away")));
    await expect(putting).rejects.toThrow();
    expect(await store.exists("aborted")).toBe(false);
  });

  it("delete removes a blob and is idempotent; get of a missing blob is BlobNotFoundError", async () => {
    await store.put("doomed", Readable.from([Buffer.from("x")]));
    await store.delete("doomed");
    await store.delete("doomed");
    expect(await store.exists("doomed")).toBe(false);
    await expect(store.get("doomed")).rejects.toBeInstanceOf(BlobNotFoundError);
  });

  it("refuses keys that are not flat names", async () => {
    await expect(store.put("../escape", Readable.from([]))).rejects.toThrow(/invalid blob key/);
  });
});
