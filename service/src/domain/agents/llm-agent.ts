/**
 * `llm`: forwards the conversation to an upstream OpenAI-compatible endpoint with the agent's
 * system prompt and upstream model. Streams pass through as events; failures become 502
 * `upstream_error` without the upstream's key or body; a caller that goes away aborts the call.
 */
import { request as undiciRequest, type Dispatcher } from "undici";
import { upstreamFailed } from "../../errors.js";
import type { LlmSpec } from "./agent-spec.js";
import { fromStream } from "./llm-stream.js";
import type { Agent, AgentContext, AgentEvent, AgentInfo, ChatMessage, ChatRequest } from "./types.js";
import { connectFailure, upstreamRefusal, usageEvent, type UpstreamChunk, type UpstreamErrorListener } from "./upstream-wire.js";

export interface Upstream {
  /** Base URL without a trailing slash; requests go to `${baseUrl}/chat/completions`. */
  baseUrl: string;
  apiKey?: string;
  /** Shared keep-alive connection pool. */
  dispatcher: Dispatcher;
  /** Told of each failed call (the metrics). */
  onError?: UpstreamErrorListener;
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
  if (request.metadata !== undefined) body.metadata = request.metadata;
  if (request.tools !== undefined) body.tools = request.tools;
  if (request.tool_choice !== undefined) body.tool_choice = request.tool_choice;
  return JSON.stringify(body);
}

export function llmAgent(info: AgentInfo, spec: LlmSpec, upstream: Upstream): Agent {
  const url = `${upstream.baseUrl}/chat/completions`;
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  if (upstream.apiKey) headers.authorization = `Bearer ${upstream.apiKey}`;
  const onError = upstream.onError ?? (() => {});

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
      throw connectFailure(err, onError);
    }
    if (res.statusCode >= 400) {
      onError(String(res.statusCode));
      const detail = (await res.body.json().catch(() => undefined)) as UpstreamChunk | undefined;
      ctx.log.warn({ agent: info.id, upstreamStatus: res.statusCode, upstreamCode: detail?.error?.code ?? null }, "upstream refused the request");
      const retryAfter = res.headers["retry-after"];
      throw upstreamRefusal(res.statusCode, detail, typeof retryAfter === "string" ? retryAfter : undefined);
    }
    return res;
  }

  return {
    ...info,
    // One generator per call, no delegation: every event costs one hop to the caller.
    run: (request, ctx) =>
      request.stream === false ? fromJson(() => send(request, ctx, false), request, onError) : fromStream(() => send(request, ctx, true), request, ctx, onError),
  };
}

async function* fromJson(send: () => Promise<Dispatcher.ResponseData>, request: ChatRequest, onError: UpstreamErrorListener): AsyncGenerator<AgentEvent> {
  const res = await send();
  let json: UpstreamChunk;
  try {
    json = (await res.body.json()) as UpstreamChunk;
  } catch {
    onError("bad_response");
    throw upstreamFailed("its response was not valid JSON");
  }
  const choice = json.choices?.[0];
  if (!choice?.message) {
    onError("bad_response");
    throw upstreamFailed("its response had no choices");
  }
  const content = choice.message.content ?? "";
  if (content) yield { type: "content", text: content };
  if (choice.message.tool_calls?.length) yield { type: "tool_calls", toolCalls: choice.message.tool_calls };
  yield await usageEvent(json.usage, request, content);
  yield { type: "finish", reason: choice.finish_reason ?? "stop" };
}
