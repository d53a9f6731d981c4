/**
 * `synthetic`: streams a fixed number of tokens at a fixed pace. Not a model: it exists so load
 * tests can prove streaming, idle timeouts (`silence_ms` before the first token) and throughput.
 * Each word it streams is one token of its own vocabulary: its completion tokens are the words it
 * sent (what `max_tokens` and the load tests count); its prompt tokens are counted like the others'.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { SyntheticSpec } from "./agent-spec.js";
import { tokenCounter } from "./tokens.js";
import type { Agent, AgentContext, AgentEvent, AgentInfo, ChatRequest } from "./types.js";

const WORDS = ["Lorem", "ipsum", "dolor", "sit", "amet,", "consectetur", "adipiscing", "elit,", "sed", "do"];
const token = (i: number) => (i === 0 ? WORDS[0] : " " + WORDS[i % WORDS.length]);
const text = (count: number) => Array.from({ length: count }, (_, i) => token(i)).join("");
/** Tokens an unpaced stream hands over in one event: few hops, a bounded string. */
const BATCH = 64;

export function syntheticAgent(info: AgentInfo, spec: SyntheticSpec): Agent {
  const interval = spec.interval_ms ?? 0;
  const silence = spec.silence_ms ?? 0;
  // The whole answer, prepared once for non-streaming callers (when it is a reasonable size).
  const whole = spec.tokens <= 4096 ? text(spec.tokens) : undefined;
  return {
    ...info,
    maxCompletionTokens: spec.tokens,
    async *run(request: ChatRequest, ctx: AgentContext): AsyncGenerator<AgentEvent> {
      const limit = request.max_tokens ?? Infinity;
      const count = Math.min(spec.tokens, limit);
      const tokens = await tokenCounter();
      if (silence > 0) await sleep(silence, undefined, { signal: ctx.signal });
      if (request.stream === false && interval === 0) {
        // A caller collecting the whole answer gets it in one piece: same text, fewer hops.
        yield { type: "content", text: count === spec.tokens && whole ? whole : text(count) };
      } else if (interval === 0) {
        for (let i = 0; i < count; i += BATCH) {
          yield { type: "contents", texts: Array.from({ length: Math.min(BATCH, count - i) }, (_, k) => token(i + k)) };
        }
      } else {
        for (let i = 0; i < count; i++) {
          // A caller that stops wants no more: paced waits end on its signal, and it stops iterating.
          if (i > 0 && interval > 0) await sleep(interval, undefined, { signal: ctx.signal });
          yield { type: "content", text: token(i) };
        }
      }
      yield { type: "usage", promptTokens: await tokens.prompt(request.messages), completionTokens: count };
      yield { type: "finish", reason: count < spec.tokens ? "length" : "stop" };
    },
  };
}
