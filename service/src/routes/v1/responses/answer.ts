/**
 * An agent's answer read in chat terms, for the Responses shapes: an offline agent's events as
 * they are, an `llm` agent's relayed upstream chunks (or whole completion) parsed for their first
 * choice (the Responses API has one answer per request).
 */
import type { AgentEvent } from "../../../domain/agents/types.js";
import type { ChatAnswer } from "../../../domain/responses/response-object.js";
import type { ToolCallDelta } from "../../../domain/responses/stream-events.js";
import type { Collected } from "../chat/completions/collect.js";

/** What one chunk of an answer adds. */
export interface Delta {
  text?: string;
  refusal?: string;
  toolCalls?: ToolCallDelta[];
  finishReason?: string;
}

interface Choice {
  index?: number;
  delta?: { content?: unknown; refusal?: unknown; tool_calls?: unknown };
  message?: { content?: unknown; refusal?: unknown; tool_calls?: unknown };
  finish_reason?: unknown;
}

/** The first choice of a relayed chunk or completion (its members after the head, as the agent gave them). */
function firstChoice(members: string): Choice | undefined {
  const parsed = JSON.parse(`{${members}}`) as { choices?: Choice[] };
  return parsed.choices?.find((c) => (c.index ?? 0) === 0);
}

const str = (v: unknown) => (typeof v === "string" ? v : undefined);

function deltaOf(part: Choice["delta"], finish: unknown): Delta {
  const delta: Delta = {};
  if (str(part?.content)) delta.text = part!.content as string;
  if (str(part?.refusal)) delta.refusal = part!.refusal as string;
  if (Array.isArray(part?.tool_calls)) delta.toolCalls = part.tool_calls as ToolCallDelta[];
  if (str(finish)) delta.finishReason = finish as string;
  return delta;
}

/** The deltas one agent event carries, in order. */
export function deltas(event: AgentEvent): Delta[] {
  switch (event.type) {
    case "content":
      return [{ text: event.text }];
    case "contents":
      return event.texts.map((text) => ({ text }));
    case "tool_calls":
      return [{ toolCalls: event.toolCalls as ToolCallDelta[] }];
    case "finish":
      return [{ finishReason: event.reason }];
    case "chunks":
      return event.chunks.flatMap((members) => {
        const choice = firstChoice(members);
        return choice ? [deltaOf(choice.delta, choice.finish_reason)] : [];
      });
    default:
      return [];
  }
}

/** A collected answer (JSON replies): an upstream's completion read for its first choice, else the agent's own. */
export function answerOf(collected: Collected): ChatAnswer {
  if (collected.relayed === undefined)
    return { content: collected.content, toolCalls: collected.toolCalls, finishReason: collected.finishReason };
  const choice = firstChoice(collected.relayed);
  const message = choice?.message;
  const answer: ChatAnswer = {
    content: str(message?.content) ?? "",
    finishReason: str(choice?.finish_reason) ?? "stop",
  };
  const refusal = str(message?.refusal);
  if (refusal) answer.refusal = refusal;
  if (Array.isArray(message?.tool_calls)) answer.toolCalls = message.tool_calls as ChatAnswer["toolCalls"];
  return answer;
}
