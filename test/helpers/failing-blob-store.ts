/** A blob store wrapper that fails on demand: mid-write after N bytes, or on delete. */
import { Transform, type Readable } from "node:stream";
import type { BlobStore, ByteRange, PutOptions } from "../../service/src/blobs/blob-store.js";

export class FailingBlobStore implements BlobStore {
  /** Fail the next puts after this many bytes have passed (undefined: never). */
  failPutAfterBytes?: number;
  /** Fail this many of the next deletes. */
  failDeletes = 0;
  /** Fail reads (the backend is down) while true. */
  failGets = false;

  readonly inner: BlobStore;
  constructor(inner: BlobStore) {
    this.inner = inner;
  }

  get kind() {
    return this.inner.kind;
  }
  init() {
    return this.inner.init();
  }
  put(key: string, body: Readable, opts?: PutOptions) {
    const limit = this.failPutAfterBytes;
    if (limit === undefined) return this.inner.put(key, body, opts);
    let seen = 0;
    const tap = new Transform({
      transform(chunk: Buffer, _enc, done) {
        seen += chunk.length;
        if (seen > limit) done(new Error("storage backend failed mid-write"));
        else done(null, chunk);
      },
    });
    body.on("error", (err) => tap.destroy(err));
    body.pipe(tap);
    return this.inner.put(key, tap, opts);
  }
  get(key: string, range?: ByteRange) {
    if (this.failGets)
      return Promise.reject(Object.assign(new Error("connect ECONNREFUSED storage"), { code: "ECONNREFUSED" }));
    return this.inner.get(key, range);
  }
  async delete(key: string) {
    if (this.failDeletes > 0) {
      this.failDeletes--;
      throw new Error("storage backend refused the delete");
    }
    return this.inner.delete(key);
  }
  exists(key: string) {
    return this.inner.exists(key);
  }
  list() {
    return this.inner.list();
  }
  close() {
    return this.inner.close();
  }
}
