/**
 * The files module (`app.files`): uploads streamed to the blob store with their metadata in the
 * PostgreSQL store, listing by id cursor, content by range, deletion that never forgets a blob,
 * and ranked retrieval over text files for the `files` agents.
 */
import type { Readable } from "node:stream";
import type { BlobStore, ByteRange } from "../../blobs/blob-store.js";
import type { Db } from "../../store/db.js";
import type { FileSearch } from "../agents/types.js";
import { BlobDeletions, type Logger } from "./blob-deletions.js";
import { newFileId } from "./file-id.js";
import { PendingUpload } from "./pending-upload.js";
import { FILE_COLUMNS, toRecord, type FileRow } from "./rows.js";
import { searchText } from "./text-index.js";
import type { FileRecord, ListOptions } from "./types.js";

const SEARCH_DEFAULT_LIMIT = 5;
const SEARCH_MAX_LIMIT = 50;

export interface FilesOptions {
  db: Db;
  blobs: BlobStore;
  /** Largest file accepted, in bytes. */
  maxBytes: number;
  log: Logger;
}

export class Files {
  readonly blobs: BlobStore;
  readonly deletions: BlobDeletions;
  private readonly db: Db;
  private readonly maxBytes: number;

  constructor(opts: FilesOptions) {
    this.db = opts.db;
    this.blobs = opts.blobs;
    this.maxBytes = opts.maxBytes;
    this.deletions = new BlobDeletions(opts.db, opts.blobs, opts.log);
  }

  /** Starts an upload whose bytes may come before its purpose (multipart forms). */
  async begin(projectId: string): Promise<PendingUpload> {
    const id = newFileId();
    await this.deletions.uploadStarted(id);
    return new PendingUpload(id, projectId, {
      db: this.db,
      blobs: this.blobs,
      deletions: this.deletions,
      maxBytes: this.maxBytes,
    });
  }

  /** A whole upload in one call, for callers that know the purpose first (MCP tools). */
  async create(
    projectId: string,
    input: { filename: string; purpose: string; mimeType?: string; body: Readable; signal?: AbortSignal },
  ): Promise<FileRecord> {
    const upload = await this.begin(projectId);
    try {
      await upload.write(
        input.body,
        { filename: input.filename, mimeType: input.mimeType ?? "application/octet-stream" },
        input.signal,
      );
      return await upload.commit(input.purpose);
    } finally {
      await upload.discard();
    }
  }

  async list(projectId: string, opts: ListOptions): Promise<{ data: FileRecord[]; hasMore: boolean }> {
    const params: unknown[] = [projectId, opts.limit + 1];
    const where = ["project_id = $1"];
    if (opts.purpose) {
      params.push(opts.purpose);
      where.push(`purpose = $${params.length}`);
    }
    if (opts.after) {
      params.push(opts.after);
      where.push(`id ${opts.order === "asc" ? ">" : "<"} $${params.length}`);
    }
    const { rows } = await this.db.query<FileRow>(
      `SELECT ${FILE_COLUMNS} FROM files WHERE ${where.join(" AND ")} ORDER BY id ${opts.order === "asc" ? "ASC" : "DESC"} LIMIT $2`,
      params,
    );
    return { data: rows.slice(0, opts.limit).map(toRecord), hasMore: rows.length > opts.limit };
  }

  async get(projectId: string, id: string): Promise<FileRecord | undefined> {
    const { rows } = await this.db.query<FileRow>(
      `SELECT ${FILE_COLUMNS} FROM files WHERE id = $1 AND project_id = $2`,
      [id, projectId],
    );
    return rows[0] && toRecord(rows[0]);
  }

  /** A stream of a file's bytes (or of `range`). */
  open(file: FileRecord, range?: ByteRange): Promise<Readable> {
    return this.blobs.get(file.id, range);
  }

  /** Removes the row (the file is gone at once) and then its blob; a failed blob delete is retried later. */
  async delete(projectId: string, id: string): Promise<boolean> {
    const key = await this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ blob_key: string }>(
        "DELETE FROM files WHERE id = $1 AND project_id = $2 RETURNING blob_key",
        [id, projectId],
      );
      if (!rows[0]) return undefined;
      await this.deletions.schedule(tx, rows[0].blob_key, "file deleted");
      return rows[0].blob_key;
    });
    if (key === undefined) return false;
    await this.deletions.remove(key, "file deleted");
    return true;
  }

  /** Ranked retrieval over the project's text files (the `files` agents' FileSearch). */
  readonly search: FileSearch = (projectId, query, limit = SEARCH_DEFAULT_LIMIT) =>
    searchText(this.db, projectId, query, Math.max(1, Math.min(limit, SEARCH_MAX_LIMIT)));
}
