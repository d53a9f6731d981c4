/**
 * `llm`: forwards the conversation to an upstream OpenAI-compatible endpoint with the agent's
 * system prompt and upstream model. Streams pass through as events; failures become 502
 * `upstream_error` without the upstream's key or body; a caller that goes away aborts the call.
 */
import { request as undiciRequest, type Dispatcher } from "undici";
import { upstreamFailed } from "../../errors.js";
import type { LlmSpec } from "./agent-spec.js";
import { contentOnly } from "./content-delta.js";
import { SseDecoder } from "./sse-decoder.js";
import { estimateTokens, promptTokens } from "./text.js";
import type { Agent, AgentContext, AgentEvent, AgentInfo, ChatMessage, ChatRequest } from "./types.js";

export interface Upstream {
  /** Base URL without a trailing slash; requests go to `${baseUrl}/chat/completions`. */
  baseUrl: string;
  apiKey?: string;
  /** Shared keep-alive connection pool. */
  dispatcher: Dispatcher;
}

type FinishReason = "stop" | "length" | "tool_calls" | "content_filter";
interface UpstreamChoice {
  delta?: { content?: string | null; tool_calls?: unknown[] };
  message?: { content?: string | null; tool_calls?: unknown[] };
  finish_reason?: FinishReason | null;
}
interface UpstreamChunk {
  choices?: UpstreamChoice[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: { message?: string; code?: string | null };
}

function upstreamBody(spec: LlmSpec, request: ChatRequest, stream: boolean): string {
  const messages: ChatMessage[] = spec.system_prompt
    ? [{ role: "system", content: spec.system_prompt }, ...request.messages]
    : request.messages;
  const body: Record<string, unknown> = { ...request.passthrough, model: spec.model, messages, stream };
  if (stream) body.stream_options = { include_usage: true };
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.top_p !== undefined) body.top_p = request.top_p;
  if (request.max_tokens !== undefined && body.max_completion_tokens === undefined) body.max_tokens = request.max_tokens;
  if (request.stop !== undefined) body.stop = request.stop;
  if (request.user !== undefined) body.user = request.user;
  if (request.tools !== undefined) body.tools = request.tools;
  if (request.tool_choice !== undefined) body.tool_choice = request.tool_choice;
  return JSON.stringify(body);
}

/** Network failures name the failure class only: never the upstream's key or response body. */
function connectFailure(err: unknown): Error {
  const code = (err as { code?: string }).code;
  return upstreamFailed(code ? `could not reach it (${code})` : "could not reach it");
}

export function llmAgent(info: AgentInfo, spec: LlmSpec, upstream: Upstream): Agent {
  const url = `${upstream.baseUrl}/chat/completions`;
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  if (upstream.apiKey) headers.authorization = `Bearer ${upstream.apiKey}`;

  /** Sends the request; resolves once the upstream answered 2xx with its headers. */
  async function send(request: ChatRequest, ctx: AgentContext, stream: boolean): Promise<Dispatcher.ResponseData> {
    let res: Dispatcher.ResponseData;
    try {
      res = await undiciRequest(url, {
        method: "POST",
        headers,
        body: upstreamBody(spec, request, stream),
        signal: ctx.signal,
        dispatcher: upstream.dispatcher,
      });
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      throw connectFailure(err);
    }
    if (res.statusCode >= 400) {
      const detail = (await res.body.json().catch(() => undefined)) as UpstreamChunk | undefined;
      ctx.log.warn({ agent: info.id, upstreamStatus: res.statusCode, upstreamCode: detail?.error?.code ?? null }, "upstream refused the request");
      throw upstreamFailed(`it answered HTTP ${res.statusCode}`);
    }
    return res;
  }

  return {
    ...info,
    // One generator per call, no delegation: every event costs one hop to the caller.
    run: (request, ctx) =>
      request.stream === false ? fromJson(() => send(request, ctx, false), request) : fromStream(() => send(request, ctx, true), request, ctx),
  };
}

async function* fromJson(send: () => Promise<Dispatcher.ResponseData>, request: ChatRequest): AsyncGenerator<AgentEvent> {
  const res = await send();
  let json: UpstreamChunk;
  try {
    json = (await res.body.json()) as UpstreamChunk;
  } catch {
    throw upstreamFailed("its response was not valid JSON");
  }
  const choice = json.choices?.[0];
  if (!choice?.message) throw upstreamFailed("its response had no choices");
  const content = choice.message.content ?? "";
  if (content) yield { type: "content", text: content };
  if (choice.message.tool_calls?.length) yield { type: "tool_calls", toolCalls: choice.message.tool_calls };
  yield usageEvent(json.usage, request, content);
  yield { type: "finish", reason: choice.finish_reason ?? "stop" };
}

/** What one upstream stream chunk contributes; content deltas that arrived together become one. */
class StreamState {
  finish?: FinishReason;
  usage: UpstreamChunk["usage"];
  chars = 0;
  done = false;

  constructor(private readonly ctx: AgentContext) {}

  events(payloads: string[]): AgentEvent[] {
    const out: AgentEvent[] = [];
    let text = "";
    for (const data of payloads) {
      // The body is read to its end after [DONE]: the connection then goes back to the pool.
      if (data === "[DONE]") {
        this.done = true;
        continue;
      }
      const fast = contentOnly(data);
      if (fast !== undefined) {
        text += fast;
        continue;
      }
      const chunk = JSON.parse(data) as UpstreamChunk;
      if (chunk.error) {
        this.ctx.log.warn({ upstreamCode: chunk.error.code ?? null }, "upstream stream failed");
        throw upstreamFailed("its stream reported an error");
      }
      if (chunk.usage) this.usage = chunk.usage;
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = choice.delta;
      if (delta?.content) text += delta.content;
      if (delta?.tool_calls?.length) {
        if (text) out.push({ type: "content", text });
        text = "";
        out.push({ type: "tool_calls", toolCalls: delta.tool_calls });
      }
      if (choice.finish_reason) this.finish = choice.finish_reason;
    }
    if (text) {
      this.chars += text.length;
      out.push({ type: "content", text });
    }
    return out;
  }
}

async function* fromStream(send: () => Promise<Dispatcher.ResponseData>, request: ChatRequest, ctx: AgentContext): AsyncGenerator<AgentEvent> {
  const res = await send();
  const decoder = new SseDecoder();
  const state = new StreamState(ctx);
  try {
    for await (const chunk of res.body) {
      for (const event of state.events(decoder.push(chunk))) yield event;
    }
    for (const event of state.events(decoder.end())) yield event;
  } catch (err) {
    if (ctx.signal.aborted || (err as Error).name === "ApiError") throw err;
    throw err instanceof SyntaxError ? upstreamFailed("its stream carried invalid JSON") : connectFailure(err);
  } finally {
    // Anything else that ended the loop (a consumer gone, an error) drops the upstream request.
    if (!res.body.readableEnded) res.body.destroy();
  }
  if (!state.done && !state.finish) throw upstreamFailed("its stream ended before the answer was complete");
  yield usageEvent(state.usage, request, state.chars);
  yield { type: "finish", reason: state.finish ?? "stop" };
}

function usageEvent(usage: UpstreamChunk["usage"], request: ChatRequest, completion: string | number): AgentEvent {
  const estimated = typeof completion === "number" ? Math.ceil(completion / 4) : estimateTokens(completion);
  return {
    type: "usage",
    promptTokens: usage?.prompt_tokens ?? promptTokens(request.messages),
    completionTokens: usage?.completion_tokens ?? estimated,
  };
}
