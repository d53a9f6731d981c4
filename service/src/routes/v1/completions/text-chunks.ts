/**
 * Serialized text_completion payloads for one answer (`cmpl-…` id, the model the request named):
 * an upstream's own under our head, or ours from an agent's text. A stream's chunks have the same
 * shape as the whole answer, as OpenAI's do.
 */
import { randomBytes } from "node:crypto";
import type { Usage } from "../chat/completions/usage.js";

export const textCompletionId = () => "cmpl-" + randomBytes(18).toString("base64url");

/** Chat's reasons in the legacy API's words: it has no tool calls. */
export function textFinishReason(reason: unknown): string {
  return reason === "length" || reason === "content_filter" ? reason : "stop";
}

export interface TextChoice {
  text: string;
  index: number;
  finish_reason: string | null;
}

export class TextWriter {
  private readonly head: string;

  constructor(model: string, id = textCompletionId(), created = Math.floor(Date.now() / 1000)) {
    this.head = `{"id":"${id}","object":"text_completion","created":${created},"model":${JSON.stringify(model)}`;
  }

  /** An upstream's text_completion (or chunk) under our head: its members after the head, as it sent them. */
  relay(members: string): string {
    return members ? this.head + "," + members + "}" : this.head + "}";
  }

  /** Our answer or chunk: its choices, and the usage when given. */
  choices(choices: TextChoice[], usage?: Usage): string {
    const list = choices.map(
      (c) =>
        `{"text":${JSON.stringify(c.text)},"index":${c.index},"logprobs":null,"finish_reason":${JSON.stringify(c.finish_reason)}}`,
    );
    return this.head + `,"choices":[${list.join(",")}]` + (usage ? `,"usage":${JSON.stringify(usage)}` : "") + "}";
  }
}

interface ChatChoice {
  index?: number;
  message?: { content?: unknown };
  delta?: { content?: unknown };
  finish_reason?: unknown;
}

/** An upstream chat answer's (or chunk's) members, as text choices: each choice's content and finish. */
export function chatChoices(members: string, whole: boolean): { choices: TextChoice[]; usage?: Usage } {
  const parsed = JSON.parse(`{${members}}`) as { choices?: ChatChoice[]; usage?: Usage | null };
  const choices: TextChoice[] = [];
  for (const c of parsed.choices ?? []) {
    const content = whole ? c.message?.content : c.delta?.content;
    const text = typeof content === "string" ? content : "";
    const finish = c.finish_reason ? textFinishReason(c.finish_reason) : null;
    // A stream's role chunk carries no text: nothing to send.
    if (!whole && text === "" && finish === null) continue;
    choices.push({ text, index: c.index ?? 0, finish_reason: whole ? (finish ?? "stop") : finish });
  }
  return { choices, usage: parsed.usage ?? undefined };
}
