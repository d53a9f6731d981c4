/**
 * The response object of one run: its head from the request (echoed fields as OpenAI echoes them),
 * its output items from the agent's answer, its status from how the answer ended.
 */
import { newId } from "./ids.js";
import type { OutputItem, ResponseObject, ResponseUsage } from "./types.js";

/** The request fields a response echoes. */
export interface EchoedFields {
  model: string;
  instructions?: string | null;
  max_output_tokens?: number | null;
  parallel_tool_calls?: boolean | null;
  previous_response_id?: string | null;
  store?: boolean | null;
  temperature?: number | null;
  top_p?: number | null;
  text?: { format?: Record<string, unknown> } | null;
  tool_choice?: unknown;
  tools?: Array<Record<string, unknown>>;
  user?: string;
  metadata?: Record<string, string> | null;
}

/** A response in progress, nothing answered yet. */
export function newResponse(body: EchoedFields): ResponseObject {
  return {
    id: newId("resp"),
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: "in_progress",
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: body.model,
    output: [],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: { format: body.text?.format ?? { type: "text" } },
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: "disabled",
    ...(body.user !== undefined && { user: body.user }),
    metadata: body.metadata ?? {},
  };
}

/** An agent's whole answer, in chat terms. */
export interface ChatAnswer {
  content: string;
  refusal?: string;
  toolCalls?: Array<{ id?: string; function?: { name?: string; arguments?: string } }>;
  finishReason: string;
}

/** The answer's output items: its text (or refusal) as one message, then each tool call. */
export function outputItems(answer: ChatAnswer): OutputItem[] {
  const items: OutputItem[] = [];
  const status =
    answer.finishReason === "length" || answer.finishReason === "content_filter" ? "incomplete" : "completed";
  if (answer.refusal)
    items.push({
      type: "message",
      id: newId("msg"),
      status,
      role: "assistant",
      content: [{ type: "refusal", refusal: answer.refusal }],
    });
  else if (answer.content || !answer.toolCalls?.length) {
    items.push({
      type: "message",
      id: newId("msg"),
      status,
      role: "assistant",
      content: [{ type: "output_text", text: answer.content, annotations: [], logprobs: [] }],
    });
  }
  for (const call of answer.toolCalls ?? []) {
    items.push({
      type: "function_call",
      id: newId("fc"),
      call_id: call.id ?? newId("fc"),
      name: call.function?.name ?? "",
      arguments: call.function?.arguments ?? "",
      status: "completed",
    });
  }
  return items;
}

export function responseUsage(usage: { prompt_tokens: number; completion_tokens: number }): ResponseUsage {
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
  };
}

/** The response once its answer is complete: `incomplete` when it was cut at max_output_tokens or filtered. */
export function finished(
  response: ResponseObject,
  output: OutputItem[],
  finishReason: string,
  usage: ResponseUsage,
): ResponseObject {
  const reason =
    finishReason === "length" ? "max_output_tokens" : finishReason === "content_filter" ? "content_filter" : undefined;
  return {
    ...response,
    status: reason ? "incomplete" : "completed",
    incomplete_details: reason ? { reason } : null,
    output,
    usage,
  };
}

/** The response of a run that failed after it began (a stream's `response.failed`). */
export function failed(response: ResponseObject, output: OutputItem[], code: string, message: string): ResponseObject {
  return { ...response, status: "failed", error: { code, message }, output };
}

/**
 * An upstream's own response object under this server's identity: our id, creation time, the
 * model the client named, and the request's previous_response_id, store and metadata (the
 * upstream was sent none of them); the rest as the upstream wrote it.
 */
export function adopted(ours: ResponseObject, theirs: Record<string, unknown>): ResponseObject {
  const { id, created_at, model, previous_response_id, store, metadata } = ours;
  return {
    ...ours,
    ...theirs,
    object: "response",
    id,
    created_at,
    model,
    previous_response_id,
    store,
    metadata,
  };
}

/** An upstream response's usage in chat terms, when it reported counts. */
export function reportedUsage(
  response: Record<string, unknown>,
): { promptTokens: number; completionTokens: number; cachedTokens?: number } | undefined {
  const usage = response.usage as
    | { input_tokens?: unknown; output_tokens?: unknown; input_tokens_details?: { cached_tokens?: unknown } | null }
    | null
    | undefined;
  const count = (n: unknown) =>
    Number.isSafeInteger(n) && (n as number) >= 0 && (n as number) < 2 ** 31 ? (n as number) : undefined;
  const prompt = count(usage?.input_tokens);
  const completion = count(usage?.output_tokens);
  const cached = count(usage?.input_tokens_details?.cached_tokens);
  return prompt === undefined || completion === undefined
    ? undefined
    : {
        promptTokens: prompt,
        completionTokens: completion,
        ...(cached !== undefined && cached > 0 && cached <= prompt && { cachedTokens: cached }),
      };
}
