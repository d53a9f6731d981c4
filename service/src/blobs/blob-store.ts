/**
 * One interface over the three places a file's bytes can live: a local directory, an S3 API
 * bucket, an Azure Blob container. Every implementation makes a blob visible only once it is
 * completely written, so a reader never sees half a file.
 */
import type { Readable } from "node:stream";

/** Inclusive byte range, as HTTP `Range: bytes=start-end` names it. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface PutOptions {
  /** Aborting cancels the write; nothing becomes visible under the key. */
  signal?: AbortSignal;
}

export interface BlobStore {
  readonly kind: "local" | "s3" | "azure";
  /** Creates the directory, bucket or container when it is missing. */
  init(): Promise<void>;
  /**
   * Streams `body` to `key`. Resolves with the bytes written once the blob is complete and
   * visible; rejects (leaving nothing visible) when the body errors, the signal aborts or the
   * backend fails.
   */
  put(key: string, body: Readable, opts?: PutOptions): Promise<{ size: number }>;
  /** A stream of the blob's bytes (or of `range`); rejects with BlobNotFoundError. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** Removes the blob; deleting a missing blob succeeds. */
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** Removes what writes cut short by a crash left behind, where the backend keeps it; returns how many. */
  sweepPartials?(): Promise<number>;
  /** Keys of all complete blobs (orphan checks, tests). */
  list(): Promise<string[]>;
  close(): Promise<void>;
}

export class BlobNotFoundError extends Error {
  readonly key: string;
  constructor(key: string) {
    super(`blob not found: ${key}`);
    this.key = key;
    this.name = "BlobNotFoundError";
  }
}

/** Keys are flat names: safe as a file name, an object key and a blob name alike. */
const KEY = /^[A-Za-z0-9][A-Za-z0-9_-]{0,200}$/;

export function assertKey(key: string): void {
  if (!KEY.test(key)) throw new Error(`invalid blob key '${key}'`);
}
