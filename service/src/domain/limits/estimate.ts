/**
 * A run's token estimate, reserved before it starts. OpenAI's rate-limit guide: "Your rate limit is
 * calculated as the maximum of max_tokens and the estimated number of tokens based on the
 * character count of your request" — a guess from characters, never the tokenizer, so the hot path
 * stays cheap. We reserve the sum (the prompt's estimate plus the answer's cap), the conservative
 * side of that rule: the settlement refunds what was not used.
 *
 * The prompt's estimate must not fall short of its true size in any script: a key's window admits
 * until its reservations reach the limit, so it ends within the limit plus one request only if each
 * request reserves at least what it uses (four characters a token held for English and let CJK
 * overshoot 7.6–9.1×). So each character is counted at a rate per class, measured against o200k
 * (gpt-tokenizer) on random text of each block, the worst case of its script (measure-scripts in
 * test/service/limits/estimate.test.ts repeats the measurement):
 *
 * | class                                   | random text, tokens/char | counted |
 * | --------------------------------------- | ------------------------ | ------- |
 * | ASCII letters, whitespace                | 0.46 (prose 0.25)        | 1/4     |
 * | ASCII digits (split in threes)           | 0.33                     | 1/3     |
 * | other ASCII (punctuation, symbols)       | 0.75 over all printable  | 1       |
 * | U+0080–U+024F (Latin-1, Latin extended)  | 1.42–1.63                | 2       |
 * | U+0250–U+07FF (Greek, Cyrillic, Hebrew, Arabic…) | 0.71–1.01        | 1.25    |
 * | U+0800–U+FFFF (CJK 1.94, Hangul 2.23, jamo 2.98, PUA 2.91…) | ≤ 2.98 | 3       |
 * | surrogate pairs (emoji, CJK ext. B), per UTF-16 unit | 1.11–1.98    | 2       |
 *
 * 3 and 2 are byte-level BPE's ceiling (a token is at least one UTF-8 byte), so no choice of
 * characters in those classes can exceed them; real text of those scripts uses a seventh (Hindi) to a
 * half of it, which the settlement refunds, and a request the estimate finds larger than a whole
 * TPM is counted with the tokenizer before it is refused (plugins/key-limits.ts). ASCII letters keep
 * OpenAI's four characters a token: no script's prose needs more, but random letters (not a
 * language) reach ~2× and random printable ASCII ~1.5× of this estimate, which is the one gap left.
 * One pass over the char codes, ~1 ns a character.
 */
import type { ChatMessage } from "../agents/types.js";

/** OpenAI's rule of thumb: a token is about four characters of English text. */
export const CHARS_PER_TOKEN = 4;
/** The answer's reservation when neither the request nor the agent caps it. */
export const DEFAULT_COMPLETION_ESTIMATE = 1_024;

export const tokensOfChars = (chars: number) => Math.ceil(chars / CHARS_PER_TOKEN);

/** Twelfths of a token per ASCII code (see the table above): letters and whitespace 3, digits 4, the rest 12. */
const ASCII_TWELFTHS = Uint8Array.from({ length: 128 }, (_, c) =>
  (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c <= 0x20 ? 3 : c >= 0x30 && c <= 0x39 ? 4 : 12,
);

/** The estimate of a text's tokens (see the table above); never below its characters ÷ 4. */
export function tokensOfText(text: string): number {
  // Twelfths of a token, so every rate stays an integer sum.
  let twelfths = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) twelfths += ASCII_TWELFTHS[c];
    else if (c < 0x250) twelfths += 24;
    else if (c < 0x800) twelfths += 15;
    else if (c >= 0xd800 && c <= 0xdfff) twelfths += 24;
    else twelfths += 36;
  }
  return Math.ceil(twelfths / 12);
}

/**
 * The chat format's framing, as OpenAI documents it for its chat models: 3 tokens a message and 3
 * priming the reply, plus the role's name (one token each; two allowed). Left out, a short prompt
 * reserved half of what it used.
 */
export const FRAMING_TOKENS = 3;
export const MESSAGE_FRAMING_TOKENS = 5;

/** The estimate of the conversation: its text (string contents and text parts) and its framing. */
export function promptTokens(messages: readonly ChatMessage[]): number {
  let tokens = messages.length ? FRAMING_TOKENS + MESSAGE_FRAMING_TOKENS * messages.length : 0;
  for (const m of messages) {
    if (typeof m.content === "string") tokens += tokensOfText(m.content);
    else if (Array.isArray(m.content))
      for (const part of m.content) tokens += typeof part.text === "string" ? tokensOfText(part.text) : 0;
  }
  return tokens;
}

export interface RunEstimate {
  prompt: number;
  completion: number;
  /** The answer's cap came from the request (`max_tokens`), not a default: the request's own size. */
  completionAsked: boolean;
}

/** The prompt from its text; the answer from `max_tokens`/`max_completion_tokens`, else the agent's cap. */
export function estimateRun(
  messages: readonly ChatMessage[],
  maxTokens: number | undefined,
  agentCap: number | undefined,
): RunEstimate {
  const cap = maxTokens ?? agentCap ?? DEFAULT_COMPLETION_ESTIMATE;
  return {
    prompt: promptTokens(messages),
    completion: agentCap === undefined ? cap : Math.min(cap, agentCap),
    completionAsked: maxTokens !== undefined,
  };
}

/**
 * The tokens a run may reserve under a key's TPM, or "too large" (OpenAI's 429 for a request
 * bigger than the whole limit). The request's own size is its prompt plus the answer's cap it asked
 * for; a default cap it did not ask for is reserved only up to what the limit leaves, so a request
 * without `max_tokens` is never refused for the default alone.
 */
export function tokensToReserve(estimate: RunEstimate, tpm: number): number | "too large" {
  const own = estimate.prompt + (estimate.completionAsked ? estimate.completion : 0);
  if (own > tpm) return "too large";
  return estimate.completionAsked ? own : Math.min(tpm, estimate.prompt + estimate.completion);
}
