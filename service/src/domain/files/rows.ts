/** The files table's row and its mapping to the domain record. */
import type { FileRecord } from "./types.js";

export interface FileRow {
  id: string;
  project_id: string;
  filename: string;
  purpose: string;
  /** bigint: a string from node-postgres, a number or bigint from PGlite. */
  bytes: string | number | bigint;
  mime_type: string;
  sha256: Uint8Array;
  blob_key: string;
  created_at: Date | string;
}

export const FILE_COLUMNS = "id, project_id, filename, purpose, bytes, mime_type, sha256, blob_key, created_at";

export function toRecord(r: FileRow): FileRecord {
  return {
    id: r.id,
    projectId: r.project_id,
    filename: r.filename,
    purpose: r.purpose,
    bytes: Number(r.bytes),
    mimeType: r.mime_type,
    sha256: Buffer.from(r.sha256).toString("hex"),
    createdAt: new Date(r.created_at),
  };
}
