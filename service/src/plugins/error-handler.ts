/**
 * Every error leaves as the OpenAI envelope with the status the SDKs map. Fastify's own errors
 * (body parsing, limits, schema validation) are translated; anything unexpected becomes a 500
 * that names the request id and nothing else.
 */
import type { FastifyError, FastifyInstance, FastifyReply } from "fastify";
import fp from "fastify-plugin";
import {
  ApiError,
  bodyTooLarge,
  fileTooLarge,
  frameworkRefusal,
  internalError,
  invalidJson,
  invalidMultipart,
  invalidRequest,
  invalidParam,
  missingParam,
  routeNotFound,
  tooManyFormFields,
  unavailable,
  unstorableValue,
  unsupportedMediaType,
  uploadIncomplete,
} from "../errors.js";
import { StoreError, StoreUnavailableError } from "../store/store-error.js";
import { sendAfterBody } from "../http/discard-body.js";

interface ValidationIssue {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** "/messages/0/role" → "messages[0].role" (the way OpenAI names a nested `param`). */
export function paramPath(instancePath: string, extra?: string): string {
  const parts = instancePath.split("/").filter(Boolean);
  if (extra) parts.push(extra);
  return parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");
}

/**
 * The issue to report. A field that may take several shapes (string or array, value or null) fails
 * once per shape: the one that got furthest (deepest path, then a constraint rather than a wrong
 * type) is what the caller meant, e.g. `stop` with five entries is "too many", not "not a string".
 */
function mostSpecific(issues: ValidationIssue[]): ValidationIssue {
  let best = issues[0];
  let bestDepth = -1;
  for (const issue of issues) {
    if (issue.keyword === "anyOf" || issue.keyword === "oneOf") continue;
    const depth = issue.instancePath.split("/").length;
    if (depth > bestDepth || (depth === bestDepth && best.keyword === "type" && issue.keyword !== "type")) {
      best = issue;
      bestDepth = depth;
    }
  }
  return best;
}

function fromValidation(issue: ValidationIssue): ApiError {
  if (issue.keyword === "required")
    return missingParam(paramPath(issue.instancePath, String(issue.params.missingProperty)));
  if (issue.keyword === "additionalProperties") {
    const param = paramPath(issue.instancePath, String(issue.params.additionalProperty));
    return invalidParam(param, `Unrecognized request argument supplied: '${param}'.`, "unknown_parameter");
  }
  const param = paramPath(issue.instancePath) || null;
  const message = `Invalid value for '${param ?? "body"}': ${issue.message ?? "does not match the schema"}.`;
  return param ? invalidParam(param, message) : invalidRequest(message);
}

/** The one way an error leaves: its headers, its status, the envelope. */
export function sendApiError(reply: FastifyReply, apiError: ApiError): FastifyReply {
  if (apiError.headers) reply.headers(apiError.headers);
  return reply.code(apiError.statusCode).type("application/json").send(apiError.toJSON());
}

/** Errors of the multipart parser (@fastify/multipart, busboy), or undefined for any other. */
export function multipartError(err: unknown, fileMaxBytes: number): ApiError | undefined {
  switch ((err as FastifyError).code) {
    case "FST_REQ_FILE_TOO_LARGE":
      return fileTooLarge(fileMaxBytes);
    case "FST_FILES_LIMIT":
      return invalidParam("file", "Send exactly one file per upload.", "too_many_files");
    case "FST_FIELDS_LIMIT":
    case "FST_PARTS_LIMIT":
      return tooManyFormFields();
    case "FST_MP_PREMATURE_CLOSE":
    case "ERR_STREAM_PREMATURE_CLOSE":
      return uploadIncomplete();
  }
  if (err instanceof Error && /multipart|boundary|Unexpected end of form/i.test(err.message))
    return invalidMultipart(err.message);
  return undefined;
}

export function toApiError(
  err: FastifyError,
  requestId: string,
  jsonBodyLimit: number,
  contentType?: string,
  fileMaxBytes = Infinity,
): ApiError {
  if (err instanceof ApiError) return err;
  const multipart = multipartError(err, fileMaxBytes);
  if (multipart) return multipart;
  if (err instanceof StoreUnavailableError)
    return unavailable("The metadata store is not answering; retry the request.");
  // SQLSTATE class 22 (data exception: a NUL byte, a number out of range) is the input's fault.
  if (err instanceof StoreError && err.code?.startsWith("22")) return unstorableValue();
  if (err.validation?.length) return fromValidation(mostSpecific(err.validation));
  switch (err.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return bodyTooLarge(jsonBodyLimit);
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return invalidJson(err.message);
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      // Fastify's message does not name the type: take it from the request.
      return unsupportedMediaType(contentType);
  }
  if (err instanceof SyntaxError && err.statusCode === 400) return invalidJson(err.message);
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500)
    return frameworkRefusal(err.statusCode, err.message);
  return internalError(requestId);
}

export default fp(
  async (app: FastifyInstance) => {
    app.setErrorHandler((err: FastifyError, request, reply) => {
      const apiError = toApiError(
        err,
        request.id,
        app.config.jsonBodyLimit,
        request.headers["content-type"],
        app.config.fileMaxBytes,
      );
      // Store errors are logged by SQLSTATE and statement name only: the SQL and its parameters
      // may hold a secret's hash or a user's input. An outage is one warning, not a stack per request.
      if (err instanceof StoreUnavailableError)
        request.log.warn({ code: err.code, statement: err.statement }, "metadata store unavailable");
      else if (err instanceof StoreError)
        request.log.error({ code: err.code, statement: err.statement }, "store query failed");
      else if (apiError.statusCode >= 500) request.log.error({ err }, "request failed");
      else request.log.info({ status: apiError.statusCode, code: apiError.code }, apiError.message);
      // A stream already under way cannot change its status: the SSE writer sends an error event instead.
      if (reply.sent || reply.raw.headersSent) return;
      sendAfterBody(request, reply, apiError.statusCode, () => sendApiError(reply, apiError));
      return reply;
    });
    app.setNotFoundHandler((request, reply) => {
      void sendApiError(reply, routeNotFound(request.method, request.url));
    });
  },
  { name: "error-handler" },
);
