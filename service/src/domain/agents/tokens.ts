/**
 * Token counts for the usage of agents that have no upstream to report it: OpenAI's o200k_base
 * encoding (GPT-4o and later), so offline usage is counted as a current OpenAI model would count it.
 *
 * Loaded on first use, not at import: the encoding costs ~0.3 s and ~50 MB, which a deployment
 * whose agents all call an upstream (it reports usage itself) never pays. The agents plugin awaits
 * it before the server listens when offline agents are configured, so no request waits for it.
 *
 * A client's text is counted without holding the event loop. BPE is quadratic in the length of one
 * pre-token and costs ~4 µs a character on text it has not seen (random letters): a 5 MB prompt of
 * one repeated letter would take hours, one of random letters ~20 s. So a prompt is encoded in
 * slices of at most SLICE_CHARS (cut at whitespace where there is some, which keeps the count
 * exact for prose), yielding between slices, and only its first EXACT_CHARS are encoded: the rest
 * is counted at the rate measured on them.
 */
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { messageText } from "./text.js";
import type { ChatMessage } from "./types.js";

/** At most ~16 ms of encoding between two turns of the event loop, at the encoder's worst. */
const SLICE_CHARS = 4096;
/** Encoded exactly; beyond, extrapolated. ~1 s of CPU at worst, nothing for ordinary text. */
export const EXACT_CHARS = 256 * 1024;

export interface TokenCounter {
  /** Tokens of a short text the service wrote itself (an answer, a piece of one). */
  text(text: string): number;
  /** Tokens of a text of any size from a client or an upstream; see the module comment. */
  large(text: string): Promise<number>;
  /**
   * Tokens of a chat prompt: each message's role and text, plus the chat format's framing — 3 per
   * message and 3 priming the reply, the rule OpenAI documents for its chat models.
   */
  prompt(messages: readonly ChatMessage[]): Promise<number>;
}

/** The end of the slice starting at `start`: at most SLICE_CHARS on, before whitespace if any, never inside a surrogate pair. */
function sliceEnd(text: string, start: number): number {
  let end = start + SLICE_CHARS;
  if (end >= text.length) return text.length;
  const space = text.lastIndexOf(" ", end);
  if (space > start) return space;
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

function counter(countTokens: (text: string) => number): TokenCounter {
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
  async function large(text: string): Promise<number> {
    const exact = Math.min(text.length, EXACT_CHARS);
    let tokens = 0;
    let start = 0;
    while (start < exact) {
      const end = Math.min(sliceEnd(text, start), exact);
      tokens += countTokens(text.slice(start, end));
      start = end;
      if (start < text.length) await yieldToLoop();
    }
    return start >= text.length ? tokens : tokens + Math.ceil(((text.length - start) * tokens) / start);
  }
  return {
    text: (text) => (text.length === 0 ? 0 : countTokens(text)),
    large,
    async prompt(messages) {
      let n = 3;
      for (const m of messages) n += 3 + tokensOfRole(m.role) + (await large(messageText(m)));
      return n;
    },
  };
}

let loading: Promise<TokenCounter> | undefined;

export function tokenCounter(): Promise<TokenCounter> {
  loading ??= import("gpt-tokenizer/encoding/o200k_base").then(({ countTokens }) => counter(countTokens));
  return loading;
}
