/** Upstream wire shapes and the helpers both reply forms (JSON, stream) share. */
import { upstreamFailed, upstreamMisconfigured, upstreamRateLimited, upstreamRejected, upstreamTimeout, type ApiError } from "../../errors.js";
import { tokenCounter } from "./tokens.js";
import type { ChatRequest, UsageEvent } from "./types.js";

export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter";
export interface UpstreamChoice {
  delta?: { content?: string | null; tool_calls?: unknown[] };
  message?: { content?: string | null; tool_calls?: unknown[] };
  finish_reason?: FinishReason | null;
}
export interface UpstreamChunk {
  choices?: UpstreamChoice[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
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
  const timeout = code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT" || code === "UND_ERR_CONNECT_TIMEOUT";
  onError(timeout ? "timeout" : "connection");
  if (timeout) return upstreamTimeout(`no answer (${code})`);
  return upstreamFailed(code ? `could not reach it (${code})` : "could not reach it");
}

/**
 * An upstream's refusal keeps its meaning for the caller: rate limits stay 429 with the
 * upstream's Retry-After; a request the upstream rejects (400, 422) is the caller's 400 with the
 * upstream's own message and param; a refusal of our credentials, URL or model (401, 403, 404)
 * is a server misconfiguration (502, not retryable); anything else is a 502 to retry.
 */
export function upstreamRefusal(status: number, body: UpstreamChunk | undefined, retryAfter: string | undefined): ApiError {
  const e = body?.error;
  if (status === 429) return upstreamRateLimited(e?.message, retryAfter);
  if (status === 400 || status === 422) return upstreamRejected(e?.message, e?.param ?? null, e?.code ?? null);
  if (status === 401 || status === 403 || status === 404) return upstreamMisconfigured(status);
  if (status === 408 || status === 504) return upstreamTimeout(`it answered HTTP ${status}`);
  return upstreamFailed(`it answered HTTP ${status}`);
}

/**
 * Usage as the upstream reported it (we ask for it on streams too), else counted here: the prompt
 * and a JSON answer by the tokenizer, a streamed answer (whose text is not kept) at 4 characters
 * a token.
 */
export async function usageEvent(usage: UpstreamChunk["usage"], request: ChatRequest, completion: string | number): Promise<UsageEvent> {
  if (usage?.prompt_tokens !== undefined && usage.completion_tokens !== undefined) {
    return { type: "usage", promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens };
  }
  const tokens = await tokenCounter();
  return {
    type: "usage",
    promptTokens: usage?.prompt_tokens ?? (await tokens.prompt(request.messages)),
    completionTokens: usage?.completion_tokens ?? (typeof completion === "number" ? Math.ceil(completion / 4) : await tokens.large(completion)),
  };
}
