/**
 * /v1/files — list, retrieve, delete, download (OpenAI shapes); the upload lives in its own
 * context with the multipart parser (upload.ts). Every lookup is scoped to the key's project:
 * another project's file id is a 404 like an unknown one.
 */
import type { Readable } from "node:stream";
import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { BlobNotFoundError } from "../../../blobs/blob-store.js";
import { notFound, rangeNotSatisfiable, storageUnavailable } from "../../../errors.js";
import { contentDisposition } from "./content-disposition.js";
import { downloadType } from "./download-type.js";
import { FileDeleted, FileList, FileObject, fileObject } from "./file-object.js";
import { parseRange } from "./range.js";
import { responses } from "../../responses.js";
import uploadRoute from "./upload.js";

const FileBytes = Type.Unsafe<Readable | undefined>({
  description: "The file's bytes (a Range request gets 206 and the part asked for).",
});
const FileParams = Type.Object({ file_id: Type.String({ minLength: 1, maxLength: 200 }) });
const ListQuery = Type.Object({
  after: Type.Optional(Type.String({ maxLength: 200 })),
  limit: Type.Integer({ minimum: 1, maximum: 10_000, default: 10_000 }),
  order: Type.Union([Type.Literal("asc"), Type.Literal("desc")], { default: "desc" }),
  purpose: Type.Optional(Type.String({ maxLength: 100 })),
});

export default async function filesRoutes(instance: FastifyInstance) {
  // Handlers get their request types from the route schemas.
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  await app.register(uploadRoute);

  app.get("/files", { schema: { querystring: ListQuery, response: responses({ 200: FileList }) } }, async (request) => {
    const page = await app.files.list(request.auth.projectId, request.query);
    const data = page.data.map(fileObject);
    return {
      object: "list" as const,
      data,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
      has_more: page.hasMore,
    };
  });

  app.get(
    "/files/:file_id",
    { schema: { params: FileParams, response: responses({ 200: FileObject }) } },
    async (request) => {
      const { file_id } = request.params;
      const file = await app.files.get(request.auth.projectId, file_id);
      if (!file) throw notFound("file", file_id, "file_id", "file_not_found");
      return fileObject(file);
    },
  );

  app.delete(
    "/files/:file_id",
    { schema: { params: FileParams, response: responses({ 200: FileDeleted }) } },
    async (request) => {
      const { file_id } = request.params;
      if (!(await app.files.delete(request.auth.projectId, file_id)))
        throw notFound("file", file_id, "file_id", "file_not_found");
      request.log.info({ fileId: file_id }, "file deleted");
      return { id: file_id, object: "file" as const, deleted: true };
    },
  );

  // HEAD declared here: Fastify's automatic HEAD route would read the whole blob to discard it.
  app.route({
    method: ["GET", "HEAD"],
    url: "/files/:file_id/content",
    // The body is the file's bytes (a stream, never serialized): its schema only documents it.
    schema: { params: FileParams, response: responses({ 200: FileBytes, 206: FileBytes }) },
    handler: async (request, reply) => {
      const { file_id } = request.params;
      const file = await app.files.get(request.auth.projectId, file_id);
      if (!file) throw notFound("file", file_id, "file_id", "file_not_found");
      const etag = `"${file.sha256}"`;
      const ifRange = request.headers["if-range"];
      const range = ifRange && ifRange !== etag ? undefined : parseRange(request.headers.range, file.bytes);
      if (range === "unsatisfiable") {
        void reply.header("content-range", `bytes */${file.bytes}`);
        throw rangeNotSatisfiable(file.bytes);
      }
      // HEAD gets the headers without opening the blob; GET opens it before any header is set, so
      // a storage outage answers a clean enveloped 503 instead of a download's headers.
      let body: Readable | undefined;
      if (request.method !== "HEAD") {
        try {
          body = await app.files.open(file, range);
        } catch (err) {
          if (err instanceof BlobNotFoundError) throw err;
          request.log.warn({ fileId: file.id, err: (err as Error).message }, "blob store unavailable");
          throw storageUnavailable();
        }
      }
      void reply
        .header("content-type", downloadType(file.mimeType))
        .header("content-disposition", contentDisposition(file.filename))
        .header("accept-ranges", "bytes")
        .header("etag", etag)
        .header("repr-digest", `sha-256=:${Buffer.from(file.sha256, "hex").toString("base64")}:`)
        .header("content-length", range ? range.end - range.start + 1 : file.bytes);
      if (range) void reply.code(206).header("content-range", `bytes ${range.start}-${range.end}/${file.bytes}`);
      return reply.send(body);
    },
  });
}
