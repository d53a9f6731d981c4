/**
 * Blobs as files in a directory. A write goes to `.partial/<key>.<random>` and is renamed into
 * place when complete: rename is atomic on one filesystem, so a blob is either whole or absent.
 */
import { createWriteStream } from "node:fs";
import { mkdir, open, readdir, rename, rm, stat } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { assertKey, BlobNotFoundError, type BlobStore, type ByteRange, type PutOptions } from "./blob-store.js";

const PARTIAL = ".partial";
/**
 * A partial file not written to for this long belongs to no live upload: an upload writes as its
 * bytes arrive, and a client silent this long has been cut by the gateway's read timeout. So the
 * leftovers of a process killed mid-write go at the next start or sweep, not a day later.
 */
export const STALE_PARTIAL_MS = 5 * 60 * 1000;
/** Larger than the streams' 16/64 KiB defaults: fewer, bigger writes and reads (writev batches). */
const IO_CHUNK = 1024 * 1024;

async function syncPath(path: string, flags: string): Promise<void> {
  const fh = await open(path, flags);
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException).code === "ENOENT";

export class LocalBlobStore implements BlobStore {
  readonly kind = "local";
  private readonly partialDir: string;

  private readonly dir: string;
  constructor(dir: string) {
    this.dir = dir;
    this.partialDir = join(dir, PARTIAL);
  }

  async init(): Promise<void> {
    await mkdir(this.partialDir, { recursive: true });
    await this.sweepPartials();
  }

  /** Removes partial files no upload is writing any more; returns how many. */
  async sweepPartials(staleMs = STALE_PARTIAL_MS): Promise<number> {
    const now = Date.now();
    let removed = 0;
    for (const name of await readdir(this.partialDir)) {
      const path = join(this.partialDir, name);
      const s = await stat(path).catch(() => undefined);
      if (s && now - s.mtimeMs > staleMs) {
        await rm(path, { force: true });
        removed++;
      }
    }
    return removed;
  }

  async put(key: string, body: Readable, opts: PutOptions = {}): Promise<{ size: number }> {
    assertKey(key);
    const partial = join(this.partialDir, `${key}.${randomBytes(6).toString("hex")}`);
    const out = createWriteStream(partial, { flags: "wx", highWaterMark: IO_CHUNK });
    try {
      await pipeline(body, out, { signal: opts.signal });
      // Durable before visible: the metadata row is committed next, and must never point at a
      // blob a power loss could leave short. Sync the data, rename, then sync the directory entry.
      await syncPath(partial, "r+");
      await rename(partial, join(this.dir, key));
      await syncPath(this.dir, "r");
      return { size: out.bytesWritten };
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    assertKey(key);
    // Open first so a missing blob rejects here rather than erroring the response stream.
    const fh = await open(join(this.dir, key), "r").catch((err) => {
      throw isMissing(err) ? new BlobNotFoundError(key) : err;
    });
    return fh.createReadStream({ highWaterMark: IO_CHUNK, ...(range && { start: range.start, end: range.end }) });
  }

  async delete(key: string): Promise<void> {
    assertKey(key);
    await rm(join(this.dir, key), { force: true });
  }

  async exists(key: string): Promise<boolean> {
    assertKey(key);
    return stat(join(this.dir, key)).then(
      (s) => s.isFile(),
      (err: Error) => (isMissing(err) ? false : Promise.reject(err)),
    );
  }

  async list(): Promise<string[]> {
    const entries = await readdir(this.dir, { withFileTypes: true });
    return entries.filter((e) => e.isFile() && !e.name.startsWith(".")).map((e) => e.name);
  }

  /** Names of writes in progress (tests check that an aborted write left none). */
  async partials(): Promise<string[]> {
    return readdir(this.partialDir);
  }

  async close(): Promise<void> {}
}
