/**
 * POST /v1/files: a multipart form with `file` and `purpose`, in either order (the openai SDKs
 * send the file first). The file streams straight into a pending blob; the purpose is checked
 * when the form ends, and only then is the row committed. Any failure discards the blob.
 * The multipart parser is registered here only, with its size limit one byte above the file
 * limit so that an oversized file is detected rather than silently truncated.
 */
import multipart from "@fastify/multipart";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { PendingUpload } from "../../../domain/files/pending-upload.js";
import { FILE_PURPOSES, isFilePurpose } from "../../../domain/files/types.js";
import {
  ApiError,
  clientClosed,
  fileTooLarge,
  invalidParam,
  missingParam,
  storageFailed,
  unsupportedMediaType,
} from "../../../errors.js";
import { multipartError } from "../../../plugins/error-handler.js";
import { FileObject, fileObject } from "./file-object.js";
import { responses } from "../../responses.js";

/** A form's bytes besides the file: boundaries, part headers, a short purpose. */
const FORM_OVERHEAD_BYTES = 1024 * 1024;
const MAX_FILENAME_CHARS = 255;

/** Errors of the multipart parser as API errors; anything else while storing is a storage failure. */
function formError(err: unknown, maxBytes: number): unknown {
  if (err instanceof ApiError) return err;
  return multipartError(err, maxBytes) ?? storageFailed();
}

/** Stop reading the form; whatever the client still sends is discarded so it gets our answer. */
function abandonBody(request: FastifyRequest): void {
  request.raw.unpipe();
  request.raw.resume();
}

export default async function uploadRoute(app: FastifyInstance) {
  const maxBytes = app.config.fileMaxBytes;
  await app.register(multipart, {
    limits: { fileSize: maxBytes + 1, files: 1, fields: 8, fieldSize: 4096, parts: 10, headerPairs: 50 },
  });

  app.post("/files", { schema: { response: responses({ 200: FileObject }) } }, async (request) => {
    if (!request.isMultipart()) throw unsupportedMediaType(request.headers["content-type"]);
    // A body that cannot hold a file under the limit is refused before a byte is stored.
    const declared = Number(request.headers["content-length"] ?? NaN);
    if (declared > maxBytes + FORM_OVERHEAD_BYTES) throw fileTooLarge(maxBytes);

    const gone = new AbortController();
    const onClose = () => {
      if (!request.raw.complete) gone.abort(new Error("client closed the upload"));
    };
    request.raw.once("close", onClose);

    let upload: PendingUpload | undefined;
    let purpose: string | undefined;
    try {
      for await (const part of request.parts()) {
        if (part.type === "file") {
          if (part.fieldname !== "file")
            throw invalidParam(
              part.fieldname,
              `Unrecognized file field '${part.fieldname}'; send the file as 'file'.`,
              "unknown_parameter",
            );
          upload = await app.files.begin(request.auth.projectId);
          // PostgreSQL text cannot hold NUL, and a `filename*` parameter can still encode one. The cut
          // must not split a character in two (half of it would be stored as U+FFFD).
          const filename = (part.filename || "file")
            .replace(/\0/g, "_")
            .slice(0, MAX_FILENAME_CHARS)
            .replace(/[\uD800-\uDBFF]$/, "");
          // The type is sent back as a response header on download: only printable ASCII can be.
          const mimeType =
            part.mimetype && /^[\x21-\x7e][\x20-\x7e]*$/.test(part.mimetype)
              ? part.mimetype
              : "application/octet-stream";
          await upload.write(part.file, { filename, mimeType }, gone.signal);
        } else if (part.fieldname === "purpose") {
          // Two purposes are ambiguous: the last one must not silently win.
          if (purpose !== undefined) throw invalidParam("purpose", "'purpose' was sent more than once; send it once.");
          purpose = String(part.value).trim();
        } else if (part.fieldname === "file") {
          throw invalidParam("file", "'file' must be a file upload (a form part with a filename).");
        } else if (!part.fieldname.startsWith("expires_after")) {
          // expires_after is accepted and ignored: files here do not expire.
          throw invalidParam(
            part.fieldname,
            `Unrecognized request argument supplied: '${part.fieldname}'.`,
            "unknown_parameter",
          );
        }
      }
      if (!upload?.result) throw missingParam("file");
      if (upload.result.bytes === 0) throw invalidParam("file", "The file is empty.", "empty_file");
      if (purpose === undefined) throw missingParam("purpose");
      if (!isFilePurpose(purpose)) {
        throw invalidParam(
          "purpose",
          `Invalid value for 'purpose': '${purpose.slice(0, 100)}'. Supported values: ${FILE_PURPOSES.join(", ")}.`,
        );
      }
      const file = await upload.commit(purpose);
      request.log.info({ fileId: file.id, bytes: file.bytes }, "file uploaded");
      return fileObject(file);
    } catch (err) {
      // A client that hung up mid-upload is not a storage fault: nothing to answer, nothing to alarm on.
      const apiError = request.raw.destroyed && !request.raw.complete ? clientClosed() : formError(err, maxBytes);
      if (apiError !== err && !(apiError instanceof ApiError && apiError.code === "client_closed_request"))
        request.log.warn({ err }, "upload failed");
      abandonBody(request);
      throw apiError;
    } finally {
      request.raw.off("close", onClose);
      await upload?.discard();
    }
  });
}
