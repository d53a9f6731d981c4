/**
 * Serialized chat.completion.chunk payloads for one response. The fixed head (id, created, model)
 * is built once; each chunk appends only its delta, so the hot path stringifies just the text, or,
 * for an upstream's relayed chunk, nothing at all.
 */
import { randomBytes } from "node:crypto";
import type { Collected } from "./collect.js";
import type { Usage } from "./usage.js";

// Random bytes drawn in blocks: one syscall per 227 ids rather than one each.
let pool = randomBytes(0);
let offset = 0;
export function completionId(): string {
  if (offset + 18 > pool.length) {
    pool = randomBytes(4086);
    offset = 0;
  }
  offset += 18;
  return "chatcmpl-" + pool.toString("base64url", offset - 18, offset);
}

export class ChunkWriter {
  private readonly head: string;
  private readonly usageHead: string;
  /** Our head alone, before a relayed chunk's own members. */
  private readonly ours: string;

  constructor(id: string, created: number, model: string) {
    this.ours = head(id, "chat.completion.chunk", created, model);
    // No system_fingerprint: OpenAI's schema allows only a string, and an offline agent has none.
    const common = this.ours + `,"choices":`;
    this.head = common + `[{"index":0,"delta":`;
    this.usageHead = common + `[],"usage":`;
  }

  /** An upstream's chunk under our head: its members after the head, as it sent them. */
  relay(members: string): string {
    return members ? this.ours + "," + members + "}" : this.ours + "}";
  }

  role(): string {
    return this.head + `{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`;
  }

  content(text: string): string {
    return this.head + `{"content":${JSON.stringify(text)}},"logprobs":null,"finish_reason":null}]}`;
  }

  toolCalls(calls: unknown[]): string {
    return this.head + `{"tool_calls":${JSON.stringify(calls)}},"logprobs":null,"finish_reason":null}]}`;
  }

  finish(reason: string): string {
    return this.head + `{},"logprobs":null,"finish_reason":"${reason}"}]}`;
  }

  usage(usage: Usage): string {
    return this.usageHead + JSON.stringify(usage) + "}";
  }
}

/** An offline agent's collected answer, its content null when it is tool calls alone. */
export type OwnAnswer = Omit<Collected, "relayed" | "content"> & { content: string | null };

/**
 * An offline agent's chat.completion, written as text like the stream's chunks: the members in
 * the order the response serializer wrote them, only the text, tool calls and usage serialized; no
 * system_fingerprint (OpenAI's schema allows only a string, and an offline agent has none). The route's serializer is not run for it: its unions
 * (content or null) cost a schema check each, 2 to 8 µs of a ~95 µs synthetic JSON reply.
 */
export function ownCompletion(id: string, created: number, model: string, answer: OwnAnswer): string {
  const toolCalls = answer.toolCalls ? `,"tool_calls":${JSON.stringify(answer.toolCalls)}` : "";
  const message = `{"role":"assistant","content":${JSON.stringify(answer.content)},"refusal":null${toolCalls}}`;
  return (
    head(id, "chat.completion", created, model) +
    `,"choices":[{"index":0,"message":${message},"logprobs":null,"finish_reason":${JSON.stringify(answer.finishReason)}}],"usage":${JSON.stringify(answer.usage)}}`
  );
}

/** An upstream's chat.completion under our head: its members after the head, as it sent them. */
export function relayedCompletion(id: string, created: number, model: string, members: string): string {
  return head(id, "chat.completion", created, model) + (members ? "," + members : "") + "}";
}

/** Our head of an answer, its object left open: id, object, created, model. */
function head(id: string, object: string, created: number, model: string): string {
  return `{"id":"${id}","object":"${object}","created":${created},"model":${JSON.stringify(model)}`;
}
