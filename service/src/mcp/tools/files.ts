/**
 * File tools over the project's uploaded files: list, read (text, paged by byte offset with a
 * size cap), search (the same ranked retrieval the `files` agent answers from), upload text.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import * as z from "zod";
import { FILE_PURPOSES } from "../../domain/files/types.js";
import type { McpFileRecord, McpServerDeps } from "../deps.js";
import { textWindow } from "../text-window.js";
import { errorResult, failureMessage, jsonResult } from "./results.js";

export const FILE_TOOL_NAMES = ["list_files", "read_file", "search_files", "upload_text_file"];
/** Largest slice `read_file` returns at once: big enough to be useful, small enough for a context window. */
export const READ_MAX_BYTES = 64 * 1024;

const fileJson = (f: McpFileRecord) => ({
  id: f.id,
  filename: f.filename,
  bytes: f.bytes,
  created_at: f.createdAt,
  purpose: f.purpose,
});

export function registerFileTools(server: McpServer, deps: McpServerDeps): void {
  registerListFiles(server, deps);
  registerReadFile(server, deps);
  registerSearchFiles(server, deps);
  registerUploadTextFile(server, deps);
}

function registerListFiles(server: McpServer, deps: McpServerDeps): void {
  const {
    files,
    principal: { projectId },
  } = deps;
  server.registerTool(
    "list_files",
    {
      title: "List files",
      description:
        "List the files uploaded to this project, oldest first. Page with 'after' set to the last id of the previous page.",
      inputSchema: {
        limit: z.number().int().min(1).max(100).default(20).describe("How many files to return (1-100, default 20)."),
        after: z.string().min(1).optional().describe("Return files after this file id (from the previous page)."),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ limit, after }) => {
      try {
        const page = await files.list(projectId, { limit, after });
        return jsonResult({
          files: page.data.map(fileJson),
          has_more: page.hasMore,
          next_after: page.hasMore ? (page.data.at(-1)?.id ?? null) : null,
        });
      } catch (err) {
        return errorResult(failureMessage(err, "Listing files"));
      }
    },
  );
}

function registerReadFile(server: McpServer, deps: McpServerDeps): void {
  const {
    files,
    principal: { projectId },
  } = deps;
  server.registerTool(
    "read_file",
    {
      title: "Read a file",
      description:
        `Read a text file of this project. Returns at most max_bytes (up to ${READ_MAX_BYTES}) bytes starting at byte offset; ` +
        "when more remains, next_offset says where to continue.",
      inputSchema: {
        file_id: z.string().min(1).describe("The file's id, as list_files or search_files return it."),
        offset: z.number().int().min(0).default(0).describe("Byte offset to start reading at (default 0)."),
        max_bytes: z
          .number()
          .int()
          .min(16)
          .max(READ_MAX_BYTES)
          .default(READ_MAX_BYTES)
          .describe(`Most bytes to return (16-${READ_MAX_BYTES}).`),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ file_id, offset, max_bytes }) => {
      try {
        const file = await files.get(projectId, file_id);
        if (!file) return errorResult(`No file with id '${file_id}' in this project. Use list_files to see the ids.`);
        if (offset > file.bytes)
          return errorResult(`offset ${offset} is past the end of the file (${file.bytes} bytes).`);
        const bytes = await files.read(projectId, file_id, offset, max_bytes);
        const window = textWindow(bytes, offset, file.bytes);
        if (!window.ok) return errorResult(`Cannot read '${file.filename}' as text: ${window.reason}.`);
        return jsonResult({
          file_id: file.id,
          filename: file.filename,
          total_bytes: file.bytes,
          offset: window.start,
          next_offset: window.end < file.bytes ? window.end : null,
          text: window.text,
        });
      } catch (err) {
        return errorResult(failureMessage(err, "Reading the file"));
      }
    },
  );
}

function registerSearchFiles(server: McpServer, deps: McpServerDeps): void {
  const {
    files,
    principal: { projectId },
  } = deps;
  server.registerTool(
    "search_files",
    {
      title: "Search files",
      description:
        "Full-text search over this project's uploaded text files, best matches first, each with a short passage.",
      inputSchema: {
        query: z.string().min(1).max(1000).describe("What to look for, in words."),
        limit: z.number().int().min(1).max(20).default(5).describe("How many matches to return (1-20, default 5)."),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ query, limit }) => {
      try {
        const hits = await files.search(projectId, query, limit);
        return jsonResult({
          results: hits.map((h) => ({ file_id: h.fileId, filename: h.filename, score: h.score, snippet: h.snippet })),
        });
      } catch (err) {
        return errorResult(failureMessage(err, "Searching files"));
      }
    },
  );
}

function registerUploadTextFile(server: McpServer, deps: McpServerDeps): void {
  const {
    files,
    principal: { projectId },
  } = deps;
  server.registerTool(
    "upload_text_file",
    {
      title: "Upload a text file",
      description: `Create a new text file in this project (at most ${deps.limits.uploadMaxBytes} bytes as UTF-8). Returns the new file's id.`,
      inputSchema: {
        filename: z.string().min(1).max(255).describe("Name of the new file, e.g. notes.md."),
        text: z.string().describe("The file's full text content."),
        purpose: z.enum(FILE_PURPOSES).default("assistants").describe("OpenAI file purpose (default 'assistants')."),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async ({ filename, text, purpose }, extra) => {
      const size = Buffer.byteLength(text);
      if (size > deps.limits.uploadMaxBytes) {
        return errorResult(`The text is ${size} bytes; the limit is ${deps.limits.uploadMaxBytes} bytes.`);
      }
      if (/[\\/\0]/.test(filename)) return errorResult("filename must not contain '/', '\\' or NUL.");
      const done = deps.busy(extra.sessionId);
      try {
        const signal = AbortSignal.any([extra.signal, deps.drainDeadline]);
        return jsonResult({ file: fileJson(await files.uploadText(projectId, { filename, text, purpose }, signal)) });
      } catch (err) {
        return errorResult(failureMessage(err, "Uploading the file"));
      } finally {
        done();
      }
    },
  );
}
