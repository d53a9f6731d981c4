/**
 * Token counts for the usage of agents that have no upstream to report it: OpenAI's o200k_base
 * encoding (GPT-4o and later), so offline usage is counted as a current OpenAI model would count it.
 *
 * Loaded on first use, not at import: the encoding costs ~0.3 s and ~50 MB, which a deployment
 * whose agents all call an upstream (it reports usage itself) never pays. The agents plugin awaits
 * it before the server listens when offline agents are configured, so no request waits for it.
 */
import { messageText } from "./text.js";
import type { ChatMessage } from "./types.js";

export interface TokenCounter {
  /** Tokens of a text. */
  text(text: string): number;
  /**
   * Tokens of a chat prompt: each message's role and text, plus the chat format's framing — 3 per
   * message and 3 priming the reply, the rule OpenAI documents for its chat models.
   */
  prompt(messages: readonly ChatMessage[]): number;
}

let loading: Promise<TokenCounter> | undefined;

export function tokenCounter(): Promise<TokenCounter> {
  loading ??= import("gpt-tokenizer/encoding/o200k_base").then(({ countTokens }) => ({
    text: (text) => (text.length === 0 ? 0 : countTokens(text)),
    prompt(messages) {
      let n = 3;
      for (const m of messages) n += 3 + countTokens(m.role) + countTokens(messageText(m));
      return n;
    },
  }));
  return loading;
}
