/** The OpenAI File object and the schemas of the files endpoints' responses. */
import { Type } from "typebox";
import type { FileRecord } from "../../../domain/files/types.js";

export const FileObject = Type.Object({
  /** File id, `file-…`. */
  id: Type.String(),
  object: Type.Literal("file"),
  /** Size in bytes. */
  bytes: Type.Integer(),
  /** Unix seconds. */
  created_at: Type.Integer(),
  filename: Type.String(),
  purpose: Type.String(),
  /** Always `processed`: a file is listed only once stored completely. */
  status: Type.Literal("processed"),
});

export const FileList = Type.Object({
  object: Type.Literal("list"),
  data: Type.Array(FileObject),
  first_id: Type.Union([Type.String(), Type.Null()]),
  last_id: Type.Union([Type.String(), Type.Null()]),
  has_more: Type.Boolean(),
});

export const FileDeleted = Type.Object({ id: Type.String(), object: Type.Literal("file"), deleted: Type.Boolean() });

export function fileObject(f: FileRecord) {
  return {
    id: f.id,
    object: "file" as const,
    bytes: f.bytes,
    created_at: Math.floor(f.createdAt.getTime() / 1000),
    filename: f.filename,
    purpose: f.purpose,
    status: "processed" as const,
  };
}
