/**
 * One upload from start to commit. The bytes stream to the blob store first (the form's purpose
 * may arrive after the file); the row and the text index are written in one transaction only
 * once the blob is complete. Until `commit` resolves nothing is visible; `discard` removes the
 * blob of an upload that will not commit.
 */
import type { Readable } from "node:stream";
import { pipeline } from "node:stream";
import type { BlobStore } from "../../blobs/blob-store.js";
import type { Db } from "../../store/db.js";
import type { BlobDeletions } from "./blob-deletions.js";
import { fileIdTime } from "./file-id.js";
import { UploadMeter } from "./meter.js";
import { indexText } from "./text-index.js";
import { FILE_COLUMNS, toRecord, type FileRow } from "./rows.js";
import type { FileRecord } from "./types.js";

export interface Written {
  filename: string;
  mimeType: string;
  bytes: number;
  sha256: string;
  text: string | undefined;
}

export class PendingUpload {
  private written?: Written;
  private settled = false;

  readonly id: string;
  private readonly projectId: string;
  private readonly deps: { db: Db; blobs: BlobStore; deletions: BlobDeletions; maxBytes: number };
  constructor(
    id: string,
    projectId: string,
    deps: { db: Db; blobs: BlobStore; deletions: BlobDeletions; maxBytes: number },
  ) {
    this.id = id;
    this.projectId = projectId;
    this.deps = deps;
  }

  get result(): Written | undefined {
    return this.written;
  }

  /**
   * Streams `body` into the blob. Rejects with the meter's 413 when the file passes the limit,
   * with the body's error when the client goes away, or with the store's error.
   */
  async write(body: Readable, meta: { filename: string; mimeType: string }, signal?: AbortSignal): Promise<Written> {
    if (this.written) throw new Error("upload already written");
    const meter = new UploadMeter(this.deps.maxBytes);
    // Errors travel both ways: a failing source errors the meter (and so the store's read of
    // it), a meter over the limit or a store giving up destroys the source.
    pipeline(body, meter, () => {});
    try {
      const { size } = await this.deps.blobs.put(this.id, meter, { signal });
      if (meter.failure) throw meter.failure;
      if (size !== meter.bytes) throw new Error(`blob store wrote ${size} of ${meter.bytes} bytes`);
    } catch (err) {
      meter.destroy();
      body.destroy();
      throw meter.failure ?? err;
    }
    this.written = { ...meta, bytes: meter.bytes, sha256: meter.sha256(), text: meter.text() };
    return this.written;
  }

  /** Writes the row (and the text index) and hands the blob over to it, in one transaction. */
  async commit(purpose: string): Promise<FileRecord> {
    const w = this.written;
    if (!w || this.settled) throw new Error("nothing to commit");
    const { db, deletions } = this.deps;
    const row = await db.transaction(async (tx) => {
      const { rows } = await tx.query<FileRow>(
        `INSERT INTO files (id, project_id, filename, purpose, bytes, mime_type, sha256, blob_key, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $1, $8) RETURNING ${FILE_COLUMNS}`,
        [
          this.id,
          this.projectId,
          w.filename,
          purpose,
          w.bytes,
          w.mimeType,
          Buffer.from(w.sha256, "hex"),
          fileIdTime(this.id),
        ],
      );
      if (w.text !== undefined) await indexText(tx, this.projectId, this.id, w.text);
      await deletions.uploadCommitted(tx, this.id);
      return rows[0];
    });
    this.settled = true;
    return toRecord(row);
  }

  /** Removes whatever was written; safe to call in any state, more than once. */
  async discard(): Promise<void> {
    if (this.settled) return;
    this.settled = true;
    await this.deps.deletions.remove(this.id, "upload not completed");
  }
}
