/**
 * A run's token estimate, reserved before it starts. OpenAI's rate-limit guide: "Your rate limit is
 * calculated as the maximum of max_tokens and the estimated number of tokens based on the
 * character count of your request" — a guess from characters, never the tokenizer, so the hot path
 * stays cheap. We reserve the sum (prompt ~4 characters a token, plus the answer's cap), the
 * conservative side of that rule: the settlement refunds what was not used.
 */
import type { ChatMessage } from "../agents/types.js";

/** OpenAI's rule of thumb: a token is about four characters of English text. */
export const CHARS_PER_TOKEN = 4;
/** The answer's reservation when neither the request nor the agent caps it. */
export const DEFAULT_COMPLETION_ESTIMATE = 1_024;

export const tokensOfChars = (chars: number) => Math.ceil(chars / CHARS_PER_TOKEN);

/** Characters of the conversation's text (string contents and text parts). */
export function promptChars(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const m of messages) {
    if (typeof m.content === "string") chars += m.content.length;
    else if (Array.isArray(m.content))
      for (const part of m.content) chars += typeof part.text === "string" ? part.text.length : 0;
  }
  return chars;
}

export interface RunEstimate {
  prompt: number;
  completion: number;
}

/** The prompt from its characters; the answer from `max_tokens`/`max_completion_tokens`, else the agent's cap. */
export function estimateRun(
  messages: readonly ChatMessage[],
  maxTokens: number | undefined,
  agentCap: number | undefined,
): RunEstimate {
  const cap = maxTokens ?? agentCap ?? DEFAULT_COMPLETION_ESTIMATE;
  return {
    prompt: tokensOfChars(promptChars(messages)),
    completion: agentCap === undefined ? cap : Math.min(cap, agentCap),
  };
}
