/**
 * One registry of the errors the API returns, in the OpenAI envelope
 * `{"error":{"message","type","param","code"}}` with the status codes the SDKs map.
 */

export type ErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "rate_limit_error"
  /** OpenAI's type for a request larger than a key's whole tokens-per-minute limit. */
  | "tokens"
  /** OpenAI's type (and code) for a spent quota: here, a key's or project's budget. */
  | "insufficient_quota"
  | "server_error";

/**
 * Every `code` the service answers with, declared once. Factories below take `ErrorCode`, so a
 * call site cannot invent one; only an upstream's own code passes through (`upstreamRejected`).
 */
export const ERROR_CODES = [
  // request shape
  "invalid_json",
  "invalid_value",
  "invalid_url",
  "invalid_request",
  "missing_required_parameter",
  "unknown_parameter",
  "unsupported_parameter",
  "unsupported_value",
  "unsupported_media_type",
  "request_too_large",
  "headers_too_large",
  "request_timeout",
  "url_too_long",
  // files
  "file_too_large",
  "empty_file",
  "too_many_files",
  "too_many_fields",
  "invalid_multipart",
  "upload_incomplete",
  "client_closed_request",
  "range_not_satisfiable",
  // authentication and roles
  "invalid_api_key",
  "invalid_token",
  "insufficient_permissions",
  // resources
  "unknown_url",
  "method_not_allowed",
  "model_not_found",
  "file_not_found",
  "response_not_found",
  "previous_response_not_found",
  "api_key_not_found",
  "budget_not_found",
  "conflict",
  "rate_limit_exceeded",
  // tenant bounds
  "storage_quota_exceeded",
  "tool_not_allowed",
  "insufficient_quota",
  // upstream and server
  "upstream_error",
  "upstream_timeout",
  "upstream_configuration_error",
  "upstream_rejected",
  "upstream_unavailable",
  "storage_unavailable",
  "service_unavailable",
  "internal_error",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorEnvelope {
  error: {
    /** Human-readable explanation; never contains a secret or a stack trace. */
    message: string;
    /** Broad class of error, as the OpenAI API names them. */
    type: ErrorType;
    /** The request parameter at fault, or null. */
    param: string | null;
    /** Machine-readable code, or null. */
    code: string | null;
  };
}

export class ApiError extends Error {
  /** Response headers that go with the answer (Retry-After, x-should-retry). */
  headers?: Record<string, string>;
  readonly statusCode: number;
  readonly type: ErrorType;
  readonly param: string | null;
  readonly code: string | null;
  constructor(
    statusCode: number,
    message: string,
    type: ErrorType = "invalid_request_error",
    param: string | null = null,
    code: ErrorCode | null = null,
  ) {
    super(message);
    this.statusCode = statusCode;
    this.type = type;
    this.param = param;
    this.code = code;
    this.name = "ApiError";
  }

  toJSON(): ErrorEnvelope {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** Longest piece of client input an error message repeats: enough to recognise it, no more. */
export const ECHO_MAX = 200;
/** Client input as an error message repeats it: bounded, with the cut marked. */
export const echo = (value: string) =>
  value.length > ECHO_MAX ? `${value.slice(0, ECHO_MAX)}…(${value.length} characters)` : value;

// --- request shape -------------------------------------------------------------
export const invalidJson = (detail: string) =>
  new ApiError(
    400,
    `We could not parse the JSON body of your request: ${echo(detail)}`,
    "invalid_request_error",
    null,
    "invalid_json",
  );
export const invalidParam = (param: string, message: string, code: ErrorCode = "invalid_value") =>
  new ApiError(400, message, "invalid_request_error", param, code);
/** A request the schema refused where no single field is to blame. */
export const invalidRequest = (message: string) =>
  new ApiError(400, message, "invalid_request_error", null, "invalid_value");
/** A framework refusal in the 4xx range, with Fastify's own status and message. */
export const frameworkRefusal = (status: number, message: string) =>
  new ApiError(status, echo(message), "invalid_request_error", null, null);
export const missingParam = (param: string) =>
  new ApiError(
    400,
    `Missing required parameter: '${param}'.`,
    "invalid_request_error",
    param,
    "missing_required_parameter",
  );
export const unsupportedParam = (param: string, why: string) =>
  new ApiError(
    400,
    `Unsupported parameter: '${param}' ${why}`,
    "invalid_request_error",
    param,
    "unsupported_parameter",
  );
export const bodyTooLarge = (limitBytes: number, what = "Request body") =>
  new ApiError(
    413,
    `${what} is larger than the limit of ${limitBytes} bytes.`,
    "invalid_request_error",
    null,
    "request_too_large",
  );
export const unstorableValue = () =>
  new ApiError(
    400,
    "The request contains a value that cannot be stored or searched (for example a NUL character).",
    "invalid_request_error",
    null,
    "invalid_value",
  );
export const unsupportedMediaType = (got: string | undefined) =>
  new ApiError(
    415,
    `Unsupported Content-Type '${echo(got ?? "")}'.`,
    "invalid_request_error",
    null,
    "unsupported_media_type",
  );

// --- refusals of the HTTP parser (before any route) -------------------------------
export const headersTooLarge = () =>
  new ApiError(431, "The request headers are too large.", "invalid_request_error", null, "headers_too_large");
export const requestTimeout = () =>
  new ApiError(408, "The request was not received in time.", "invalid_request_error", null, "request_timeout");
export const urlTooLong = () =>
  new ApiError(414, "The URL is too long.", "invalid_request_error", "url", "url_too_long");
export const malformedRequest = () =>
  new ApiError(400, "The HTTP request is malformed.", "invalid_request_error", null, "invalid_request");

// --- files -----------------------------------------------------------------------
export const fileTooLarge = (limitBytes: number) =>
  new ApiError(
    413,
    `The file is larger than the limit of ${limitBytes} bytes.`,
    "invalid_request_error",
    "file",
    "file_too_large",
  );
export const invalidMultipart = (detail: string) =>
  new ApiError(400, `Malformed multipart form: ${echo(detail)}`, "invalid_request_error", null, "invalid_multipart");
export const tooManyFormFields = () =>
  new ApiError(
    400,
    "The form has too many fields; send 'file' and 'purpose'.",
    "invalid_request_error",
    null,
    "too_many_fields",
  );
/** The client went away mid-request (nginx's 499): logged at info, never sent. */
export const clientClosed = () =>
  new ApiError(
    499,
    "The client closed the connection before the request was complete.",
    "invalid_request_error",
    null,
    "client_closed_request",
  );
export const uploadIncomplete = () =>
  new ApiError(
    400,
    "The upload ended before the form was complete.",
    "invalid_request_error",
    "file",
    "upload_incomplete",
  );
export const rangeNotSatisfiable = (size: number) =>
  new ApiError(
    416,
    `The requested range is not satisfiable for a file of ${size} bytes.`,
    "invalid_request_error",
    null,
    "range_not_satisfiable",
  );

// --- authentication and roles ---------------------------------------------------
export const invalidApiKey = (hint?: string) =>
  new ApiError(
    401,
    hint
      ? `Incorrect API key provided: ${hint}. Create a new key in the project's settings.`
      : "You didn't provide an API key. Send it as 'Authorization: Bearer <API key>'.",
    "invalid_request_error",
    null,
    "invalid_api_key",
  );
/** A member's JWT where an API key is needed: said as such, never shown as a mistyped key. */
export const memberTokenNotApiKey = () =>
  new ApiError(
    401,
    "The bearer token is a member token (a JWT), not an API key: this route takes an API key ('ap-…'); member tokens are for /v1/organization/… only.",
    "invalid_request_error",
    null,
    "invalid_api_key",
  );
export const invalidToken = (why: string) =>
  new ApiError(401, `Invalid member token: ${why}`, "invalid_request_error", null, "invalid_token");
export const forbidden = (message: string) =>
  new ApiError(403, message, "permission_error", null, "insufficient_permissions");

// --- resources -----------------------------------------------------------------
export const routeNotFound = (method: string, url: string) =>
  new ApiError(
    404,
    `Invalid URL (${echo(method)} ${echo(url.split("?")[0])})`,
    "invalid_request_error",
    null,
    "unknown_url",
  );
export const modelNotFound = (model: string) =>
  new ApiError(
    404,
    `The model '${echo(model)}' does not exist or you do not have access to it.`,
    "invalid_request_error",
    "model",
    "model_not_found",
  );
/** /v1/embeddings with a model that does not embed: the message names the ones that do. */
export const notAChatModel = (model: string) =>
  new ApiError(
    400,
    `The model '${echo(model)}' creates embeddings only: send it to POST /v1/embeddings. ` +
      "Chat completions and responses need a chat model (GET /v1/models lists the models).",
    "invalid_request_error",
    "model",
    "unsupported_value",
  );
export const notAnEmbeddingModel = (model: string, kind: string, embedders: string[]) =>
  new ApiError(
    400,
    `The model '${echo(model)}' does not create embeddings: it is a ${kind} agent. ` +
      (embedders.length
        ? `Models that embed: ${embedders.map((m) => `'${m}'`).join(", ")}.`
        : "No model on this server embeds: an operator declares one as an llm agent with 'embeddings: true'."),
    "invalid_request_error",
    "model",
    "unsupported_value",
  );
export const notFound = (what: string, id: string, param: string | null, code: ErrorCode) =>
  new ApiError(404, `No such ${what}: '${echo(id)}'.`, "invalid_request_error", param, code);
/** GET/DELETE of a response that is not stored in the key's project (never stored, deleted, or another project's). */
export const responseNotFound = (id: string) =>
  new ApiError(404, `Response with id '${echo(id)}' not found.`, "invalid_request_error", null, "response_not_found");
/** `previous_response_id` naming a response the project does not have. */
export const previousResponseNotFound = (id: string) =>
  new ApiError(
    404,
    `Previous response with id '${echo(id)}' not found.`,
    "invalid_request_error",
    "previous_response_id",
    "previous_response_not_found",
  );
export const methodNotAllowed = (method: string, url: string) =>
  new ApiError(
    405,
    `Method ${echo(method)} is not allowed on ${echo(url.split("?")[0])}.`,
    "invalid_request_error",
    null,
    "method_not_allowed",
  );
export const conflict = (message: string, code: ErrorCode = "conflict") =>
  new ApiError(409, message, "invalid_request_error", null, code);
export const rateLimited = (message: string) =>
  new ApiError(429, message, "rate_limit_error", null, "rate_limit_exceeded");
/** An API key over its requests-per-minute limit; Retry-After says when its window resets. */
export const keyRateLimited = (limit: number, reset: string, retryAfterSeconds: number) =>
  withHeaders(
    rateLimited(`Rate limit reached for requests: ${limit} per minute for this API key. Retry after ${reset}.`),
    { "retry-after": String(retryAfterSeconds) },
  );
/** An API key over its tokens-per-minute limit; Retry-After says when its window resets. */
export const keyTokensRateLimited = (limit: number, used: number, reset: string, retryAfterSeconds: number) =>
  withHeaders(
    rateLimited(
      `Rate limit reached for tokens: ${limit} per minute for this API key, ${used} used. Retry after ${reset}.`,
    ),
    { "retry-after": String(retryAfterSeconds) },
  );
/**
 * A request whose own size is larger than the key's whole tokens-per-minute limit: it could never
 * run, whatever the window holds (OpenAI's "Request too large … on tokens per min (TPM)").
 */
export const requestTooLargeForTpm = (limit: number, requested: number) =>
  new ApiError(
    429,
    `Request too large for this API key on tokens per min (TPM): Limit ${limit}, Requested ${requested}. The input or output tokens must be reduced in order to run successfully.`,
    "tokens",
    null,
    "rate_limit_exceeded",
  );
/**
 * A run refused because a budget is spent (OpenAI's `insufficient_quota`, type and code): which
 * budget, its limit and period, and when it resets (Retry-After when it does).
 */
export const budgetExceeded = (scope: string, limitUsd: number, period: string, resetsAt: number | null) =>
  withHeaders(
    new ApiError(
      429,
      `You exceeded your current quota: this ${scope}'s budget of $${limitUsd} per ${period} is spent. ` +
        (resetsAt === null
          ? "It does not reset (period total): ask an owner to raise it."
          : `It resets at ${new Date(resetsAt).toISOString()}.`),
      "insufficient_quota",
      null,
      "insufficient_quota",
    ),
    resetsAt === null ? {} : { "retry-after": String(Math.max(1, Math.ceil((resetsAt - Date.now()) / 1000))) },
  );
export const tooManyMcpSessions = (max: number) =>
  rateLimited(
    `Too many open MCP sessions for this API key (limit ${max}). Close one with DELETE, or let an idle one expire.`,
  );

// --- upstream and server --------------------------------------------------------
export const upstreamFailed = (detail: string) =>
  new ApiError(502, `The agent's upstream model failed: ${detail}`, "server_error", null, "upstream_error");
export const upstreamTimeout = (detail: string) =>
  new ApiError(
    504,
    `The agent's upstream model did not answer in time: ${detail}`,
    "server_error",
    null,
    "upstream_timeout",
  );
export const upstreamMisconfigured = (status: number) =>
  withHeaders(
    new ApiError(
      502,
      `The agent's upstream model refused this server's request (HTTP ${status}): its URL, model or credentials are misconfigured on the server. Retrying will not help; tell the operator.`,
      "server_error",
      null,
      "upstream_configuration_error",
    ),
    // The OpenAI SDKs retry 5xx unless told not to: a misconfiguration does not heal by retrying.
    { "x-should-retry": "false" },
  );
export const upstreamRateLimited = (message: string | undefined, retryAfter: string | undefined) =>
  withHeaders(
    new ApiError(
      429,
      `The agent's upstream model is rate limited${message ? `: ${echo(message)}` : "."}`,
      "rate_limit_error",
      null,
      "rate_limit_exceeded",
    ),
    retryAfter ? { "retry-after": retryAfter } : {},
  );
/** The upstream refused the request itself (HTTP 400/422): the client's to fix, in its words and with its own code. */
export const upstreamRejected = (message: string | undefined, param: string | null, code: string | null) => {
  const err = new ApiError(
    400,
    `The agent's upstream model rejected the request${message ? `: ${echo(message)}` : "."}`,
    "invalid_request_error",
    param,
    "upstream_rejected",
  );
  // The one code not declared here: the upstream's own, passed on as it gave it.
  if (code) (err as { code: string | null }).code = code;
  return err;
};
/** Every upstream of the agent is skipped by its circuit breaker (domain/agents/circuit-breaker.ts). */
export const upstreamUnavailable = (retryAfterSeconds: number) =>
  withHeaders(
    new ApiError(
      503,
      `The agent's upstream model failed repeatedly and is skipped for a cooldown; no call was made. Retry after ${retryAfterSeconds} s.`,
      "server_error",
      null,
      "upstream_unavailable",
    ),
    { "retry-after": String(retryAfterSeconds) },
  );
/** The project's stored responses reached RESPONSES_PROJECT_MAX_BYTES. */
export const storageQuotaExceeded = (storedBytes: number, capBytes: number) =>
  new ApiError(
    400,
    `This project's stored responses take ${storedBytes} bytes, and this request would pass the cap of ${capBytes} bytes (RESPONSES_PROJECT_MAX_BYTES). Delete stored responses, or send 'store': false.`,
    "invalid_request_error",
    "store",
    "storage_quota_exceeded",
  );
/** A built-in tool a `responses: true` agent does not declare in its `builtin_tools`. */
export const toolNotAllowed = (param: string, type: string, agentId: string) =>
  new ApiError(
    400,
    `Tool '${type.slice(0, 64)}' is not allowed for agent '${agentId}': its 'builtin_tools' in the agents file does not list it.`,
    "invalid_request_error",
    param,
    "tool_not_allowed",
  );

function withHeaders(err: ApiError, headers: Record<string, string>): ApiError {
  err.headers = headers;
  return err;
}
export const storageFailed = () =>
  new ApiError(
    503,
    "The storage backend failed; nothing was stored. Retry the request.",
    "server_error",
    null,
    "storage_unavailable",
  );
export const storageUnavailable = () =>
  new ApiError(
    503,
    "The storage backend is not answering; retry the request.",
    "server_error",
    null,
    "storage_unavailable",
  );
export const unavailable = (message: string) => new ApiError(503, message, "server_error", null, "service_unavailable");
export const internalError = (requestId: string) =>
  new ApiError(
    500,
    `The server had an error while processing your request (request id ${requestId}).`,
    "server_error",
    null,
    "internal_error",
  );
