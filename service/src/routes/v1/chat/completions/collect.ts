/** Collects an agent's events into one chat.completion choice and its usage (non-streaming replies). */
import type { AgentEvent } from "../../../../domain/agents/types.js";
import { usageOf, type Usage } from "./usage.js";

interface ToolCall {
  index?: number;
  function?: { name?: string; arguments?: string };
  [key: string]: unknown;
}

export interface Collected {
  /** An `llm` agent's upstream completion, its members after the head: the answer as it is. */
  relayed?: string;
  content: string;
  toolCalls?: ToolCall[];
  finishReason: string;
  usage: Usage;
}

/** Streamed tool-call deltas merge by `index` (arguments concatenate); whole calls are kept as they are. */
function mergeToolCalls(into: ToolCall[], calls: unknown[]): void {
  for (const call of calls as ToolCall[]) {
    const same = call.index === undefined ? undefined : into.find((c) => c.index === call.index);
    if (!same) {
      into.push({ ...call, function: call.function && { ...call.function } });
      continue;
    }
    for (const [k, v] of Object.entries(call))
      if (k !== "function" && v !== undefined && same[k] === undefined) same[k] = v;
    if (call.function) {
      same.function ??= {};
      if (call.function.name) same.function.name = call.function.name;
      if (call.function.arguments) same.function.arguments = (same.function.arguments ?? "") + call.function.arguments;
    }
  }
}

/** `metered` sees every event as it comes: what was produced counts even if the run breaks off. */
export async function collect(
  events: AsyncIterable<AgentEvent>,
  metered?: { saw(event: AgentEvent): void },
): Promise<Collected> {
  let content = "";
  let toolCalls: ToolCall[] | undefined;
  let finishReason = "stop";
  let usage: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  let relayed: string | undefined;
  for await (const event of events) {
    metered?.saw(event);
    if (event.type === "content") content += event.text;
    else if (event.type === "contents") content += event.texts.join("");
    else if (event.type === "completion") relayed = event.members;
    else if (event.type === "tool_calls") mergeToolCalls((toolCalls ??= []), event.toolCalls);
    else if (event.type === "usage") usage = usageOf(event);
    else if (event.type === "finish") finishReason = event.reason;
  }
  // Whole calls carry no index on the wire.
  toolCalls?.forEach((c) => delete c.index);
  return { relayed, content, toolCalls, finishReason, usage };
}
