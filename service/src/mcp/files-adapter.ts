/** The files module (`app.files`) as the MCP file tools see it: records in wire units, ranged reads, text uploads. */
import { Readable } from "node:stream";
import type { Files } from "../domain/files/files.js";
import type { FileRecord } from "../domain/files/types.js";
import type { McpFileRecord, McpFiles } from "./deps.js";

const toMcp = (f: FileRecord): McpFileRecord => ({
  id: f.id,
  filename: f.filename,
  bytes: f.bytes,
  createdAt: Math.floor(f.createdAt.getTime() / 1000),
  purpose: f.purpose,
});

async function collect(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(parts);
}

export function mcpFiles(files: Files): McpFiles {
  return {
    async list(projectId, { limit, after }) {
      const page = await files.list(projectId, { limit, after, order: "asc" });
      return { data: page.data.map(toMcp), hasMore: page.hasMore };
    },
    async get(projectId, fileId) {
      const file = await files.get(projectId, fileId);
      return file && toMcp(file);
    },
    async read(projectId, fileId, offset, length) {
      const file = await files.get(projectId, fileId);
      if (!file || offset >= file.bytes || length <= 0) return Buffer.alloc(0);
      // Only the window is fetched from the blob store (ranges are inclusive).
      return collect(await files.open(file, { start: offset, end: Math.min(offset + length, file.bytes) - 1 }));
    },
    search: (projectId, query, limit) => files.search(projectId, query, limit),
    async uploadText(projectId, { filename, text, purpose }, signal) {
      const body = Readable.from([Buffer.from(text, "utf8")]);
      return toMcp(
        await files.create(projectId, { filename, purpose, mimeType: "text/plain; charset=utf-8", body, signal }),
      );
    },
  };
}
