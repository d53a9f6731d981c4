/**
 * Token counts for the usage of agents that have no upstream to report it: OpenAI's o200k_base
 * encoding (GPT-4o and later), so offline usage is counted as a current OpenAI model would count it.
 *
 * Loaded on first use, not at import or start: the encoding costs ~0.3 s and ~45 MB of RSS, which
 * a replica pays only once an offline agent (or an upstream that reports no usage) is asked. The
 * first such request waits for it, once per process.
 *
 * A client's text is counted without holding the event loop or growing the heap. BPE is quadratic
 * in the length of one pre-token, and text with no spaces (random CJK above all, ~5 µs a character
 * in slices of 1 Ki, ~11 in slices of 4 Ki) is one pre-token. So text is encoded in slices of at
 * most SLICE_CHARS (cut at whitespace where there is some, which keeps the count exact for prose),
 * yielding between slices, and a request's first EXACT_CHARS characters, over all its messages,
 * are encoded: the rest is counted at the rate measured on them. The encoder's merge cache keeps
 * every pre-token it saw (100,000 by default, slices of hostile text among them): it is bounded.
 */
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { messageText } from "./text.js";
import type { ChatMessage } from "./types.js";

/**
 * At most ~8 ms of encoding between two turns of the event loop, at the encoder's worst: random
 * CJK measured ~6 ms a slice (random letters ~7, one repeated letter ~1) on a loaded machine.
 */
export const SLICE_CHARS = 1024;
/** Encoded exactly per request (all its messages); beyond, extrapolated. ~0.3 s of CPU at worst, ~20 ms for prose. */
export const EXACT_CHARS = 64 * 1024;
/** Pre-tokens the encoder remembers: ordinary words stay cached, hostile slices cannot pile up (~20 MB at worst). */
const MERGE_CACHE_ENTRIES = 2048;

export interface TokenCounter {
  /** Tokens of a short text the service wrote itself (an answer, a piece of one). */
  text(text: string): number;
  /** Tokens of a text of any size from a client or an upstream (EXACT_CHARS of it encoded); see the module comment. */
  large(text: string): Promise<number>;
  /**
   * Tokens of a chat prompt: each message's role and text, plus the chat format's framing — 3 per
   * message and 3 priming the reply, the rule OpenAI documents for its chat models. EXACT_CHARS of
   * all the messages together are encoded.
   */
  prompt(messages: readonly ChatMessage[]): Promise<number>;
}

/** The end of the slice starting at `start`: at most SLICE_CHARS on, before whitespace if any, never inside a surrogate pair. */
function sliceEnd(text: string, start: number): number {
  const end = start + SLICE_CHARS;
  if (end >= text.length) return text.length;
  const space = text.lastIndexOf(" ", end);
  if (space > start) return space;
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

/** What one request may still encode exactly, and the rate measured so far (for what is past it). */
interface Budget {
  left: number;
  chars: number;
  tokens: number;
  /** Characters encoded since the loop last turned: at most SLICE_CHARS between two turns. */
  sinceYield: number;
}

/** The counter over an encoder's count; exported for tests, which watch what it encodes. */
export function counterOf(countTokens: (text: string) => number): TokenCounter {
  // Each message's role is counted too. There are five, so each is counted once (a call to the
  // encoder costs a copy of its pre-token RegExp); the bound only guards against the unforeseen.
  const roleTokens = new Map<string, number>();
  const tokensOfRole = (role: string) => {
    let n = roleTokens.get(role);
    if (n === undefined) {
      n = countTokens(role);
      if (roleTokens.size < 16) roleTokens.set(role, n);
    }
    return n;
  };
  async function count(text: string, budget: Budget): Promise<number> {
    const exact = Math.min(text.length, budget.left);
    let tokens = 0;
    let start = 0;
    while (start < exact) {
      const end = Math.min(sliceEnd(text, start), exact);
      if (budget.sinceYield > 0 && budget.sinceYield + end - start > SLICE_CHARS) {
        await yieldToLoop();
        budget.sinceYield = 0;
      }
      tokens += countTokens(text.slice(start, end));
      budget.sinceYield += end - start;
      start = end;
    }
    budget.left -= start;
    budget.chars += start;
    budget.tokens += tokens;
    const rest = text.length - start;
    if (rest === 0) return tokens;
    // This text's own rate when part of it was encoded, else the request's.
    const [rateTokens, rateChars] = start > 0 ? [tokens, start] : [budget.tokens, Math.max(budget.chars, 1)];
    return tokens + Math.ceil((rest * rateTokens) / rateChars);
  }
  const newBudget = (): Budget => ({ left: EXACT_CHARS, chars: 0, tokens: 0, sinceYield: 0 });
  return {
    text: (text) => (text.length === 0 ? 0 : countTokens(text)),
    large: (text) => count(text, newBudget()),
    async prompt(messages) {
      const budget = newBudget();
      let n = 3;
      for (const m of messages) n += 3 + tokensOfRole(m.role) + (await count(messageText(m), budget));
      return n;
    },
  };
}

let loading: Promise<TokenCounter> | undefined;

export function tokenCounter(): Promise<TokenCounter> {
  loading ??= import("gpt-tokenizer/encoding/o200k_base").then(({ countTokens, setMergeCacheSize }) => {
    setMergeCacheSize(MERGE_CACHE_ENTRIES);
    return counterOf(countTokens);
  });
  return loading;
}
