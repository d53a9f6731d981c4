/** Upstream wire shapes and the helpers both reply forms (JSON, stream) share. */
import {
  ApiError,
  upstreamFailed,
  upstreamMisconfigured,
  upstreamRateLimited,
  upstreamRejected,
  upstreamTimeout,
} from "../../errors.js";
import { MAX_EVENT_CHARS, SseEventTooLarge } from "../../sse/sse-reader.js";
import { tokenCounter } from "./tokens.js";
import type { ChatRequest, UsageEvent } from "./types.js";

export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter";
export interface UpstreamChoice {
  delta?: { content?: string | null; tool_calls?: unknown[] };
  message?: { content?: string | null; tool_calls?: unknown[] };
  /** A legacy text completion's choice (relayed `/completions`). */
  text?: string;
  finish_reason?: FinishReason | null;
}
export interface UpstreamChunk {
  choices?: UpstreamChoice[];
  /** As reported: checked by `usageEvent` before it is believed. */
  usage?: unknown;
  error?: { message?: string; code?: string | null; param?: string | null };
}

/**
 * Told of each failed upstream call, for the metrics: the upstream's HTTP status, `timeout` or
 * `connection` when no answer came, `bad_response` when an answer broke off or could not be read.
 */
export type UpstreamErrorListener = (status: string) => void;

/** Network failures name the failure class only: never the upstream's key or response body. */
export function connectFailure(err: unknown, onError: UpstreamErrorListener): Error {
  const code = (err as { code?: string }).code;
  const timeout =
    code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT" || code === "UND_ERR_CONNECT_TIMEOUT";
  onError(timeout ? "timeout" : "connection");
  if (timeout) return upstreamTimeout(`no answer (${code})`);
  return upstreamFailed(code ? `could not reach it (${code})` : "could not reach it");
}

/**
 * What a broken upstream stream is to the caller: a network failure as connectFailure says, an
 * oversized event or invalid JSON as a bad answer (502), our own ApiError as it is.
 */
export function streamReadFailure(err: unknown, onError: UpstreamErrorListener): Error {
  if (!(err instanceof ApiError || err instanceof SyntaxError || err instanceof SseEventTooLarge))
    return connectFailure(err, onError);
  onError("bad_response");
  if (err instanceof SseEventTooLarge)
    return upstreamFailed(`its stream sent an event of over ${MAX_EVENT_CHARS} characters`);
  return err instanceof ApiError ? err : upstreamFailed("its stream carried invalid JSON");
}

/**
 * An upstream's refusal keeps its meaning for the caller: rate limits stay 429 with the
 * upstream's Retry-After; a request the upstream rejects (400, 422) is the caller's 400 with the
 * upstream's own message and param; a refusal of our credentials, URL or model (401, 403, 404)
 * is a server misconfiguration (502, not retryable); anything else is a 502 to retry.
 */
export function upstreamRefusal(
  status: number,
  body: UpstreamChunk | undefined,
  retryAfter: string | undefined,
  apiKey?: string,
): ApiError {
  const e = body?.error;
  const said = (value: unknown) => (typeof value === "string" && value ? scrubCredentials(value, apiKey) : undefined);
  if (status === 429) return upstreamRateLimited(said(e?.message), retryAfter);
  if (status === 400 || status === 422)
    return upstreamRejected(said(e?.message), said(e?.param) ?? null, said(e?.code) ?? null);
  if (status === 401 || status === 403 || status === 404) return upstreamMisconfigured(status);
  if (status === 408 || status === 504) return upstreamTimeout(`it answered HTTP ${status}`);
  return upstreamFailed(`it answered HTTP ${status}`);
}

const REDACTED = "[redacted]";
/** Credentials as upstreams echo them: an Authorization value, a bearer token, an OpenAI-style key. */
const CREDENTIAL =
  /(authorization["']?\s*[:=]\s*["']?)[^"',}\s]+(\s+[^"',}\s]+)?|\bbearer\s+[\w.~+/=-]+|\bsk-[\w-]{8,}/gi;

/**
 * An upstream's words with our credentials taken out: an upstream that echoes its request (its
 * headers, its body) must not hand the server's key to a client or a log line.
 */
export function scrubCredentials(text: string, apiKey?: string): string {
  const without = apiKey ? text.split(apiKey).join(REDACTED) : text;
  return without.replace(CREDENTIAL, (match, label: string | undefined) => (label ? label + REDACTED : REDACTED));
}

/** An upstream's error code for a log line: a short word as codes are, else not logged (it could carry anything). */
export const codeForLog = (code: unknown): string | null =>
  typeof code === "string" && /^[\w.-]{1,64}$/.test(code) && !/^sk-/.test(code) ? code : null;

/** What is wrong with an answer's `choices` (an array of objects; a stream's chunk may leave it out), or undefined. */
export function choicesProblem(choices: unknown, required: boolean): string | undefined {
  if (choices === undefined && !required) return undefined;
  if (!Array.isArray(choices))
    return choices === undefined ? "its response had no choices" : "its `choices` was not an array";
  if (required && choices.length === 0) return "its response had no choices";
  return choices.every((c) => typeof c === "object" && c !== null && !Array.isArray(c))
    ? undefined
    : "its `choices` held an entry that is not an object";
}

/** The most tokens one answer can plausibly report; past it (or not a count at all) the report is not believed. */
const MAX_REPORTED_TOKENS = 2 ** 31 - 1;
const isTokenCount = (n: unknown): n is number =>
  Number.isSafeInteger(n) && (n as number) >= 0 && (n as number) <= MAX_REPORTED_TOKENS;

/**
 * Usage as the upstream reported it (we ask for it on streams too), else counted here: the prompt
 * and a JSON answer by the tokenizer, a streamed answer (whose text is not kept) at 4 characters
 * a token. A reported count that is not a count (null, negative, fractional, absurdly large) is
 * counted here too: it must never reach the meter or the token limits.
 */
export async function usageEvent(
  usage: unknown,
  request: ChatRequest,
  completion: string | number,
): Promise<UsageEvent> {
  const reported =
    typeof usage === "object" && usage !== null
      ? (usage as {
          prompt_tokens?: unknown;
          completion_tokens?: unknown;
          prompt_tokens_details?: { cached_tokens?: unknown } | null;
        })
      : {};
  const prompt = isTokenCount(reported.prompt_tokens) ? reported.prompt_tokens : undefined;
  const answer = isTokenCount(reported.completion_tokens) ? reported.completion_tokens : undefined;
  // Cached prompt tokens (priced at the agent's `cached_input`), when reported and at most the prompt.
  const cached = reported.prompt_tokens_details?.cached_tokens;
  if (prompt !== undefined && answer !== undefined)
    return {
      type: "usage",
      promptTokens: prompt,
      completionTokens: answer,
      ...(isTokenCount(cached) && cached <= prompt && cached > 0 && { cachedTokens: cached }),
    };
  const tokens = await tokenCounter();
  return {
    type: "usage",
    promptTokens: prompt ?? (await tokens.prompt(request.messages)),
    completionTokens:
      answer ?? (typeof completion === "number" ? Math.ceil(completion / 4) : await tokens.large(completion)),
  };
}
