/** Upstream wire shapes and the helpers both reply forms (JSON, stream) share. */
import { upstreamFailed } from "../../errors.js";
import { estimateTokens, promptTokens } from "./text.js";
import type { AgentEvent, ChatRequest } from "./types.js";

export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter";
export interface UpstreamChoice {
  delta?: { content?: string | null; tool_calls?: unknown[] };
  message?: { content?: string | null; tool_calls?: unknown[] };
  finish_reason?: FinishReason | null;
}
export interface UpstreamChunk {
  choices?: UpstreamChoice[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: { message?: string; code?: string | null };
}

/** Network failures name the failure class only: never the upstream's key or response body. */
export function connectFailure(err: unknown): Error {
  const code = (err as { code?: string }).code;
  return upstreamFailed(code ? `could not reach it (${code})` : "could not reach it");
}

/** Usage as the upstream reported it, else estimated from what was asked and answered. */
export function usageEvent(usage: UpstreamChunk["usage"], request: ChatRequest, completion: string | number): AgentEvent {
  const estimated = typeof completion === "number" ? Math.ceil(completion / 4) : estimateTokens(completion);
  return {
    type: "usage",
    promptTokens: usage?.prompt_tokens ?? promptTokens(request.messages),
    completionTokens: usage?.completion_tokens ?? estimated,
  };
}
