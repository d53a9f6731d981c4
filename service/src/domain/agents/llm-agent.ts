/**
 * `llm`: forwards the conversation to an upstream OpenAI-compatible endpoint with the agent's
 * system prompt and upstream model, with every other field of the request as sent. The answer is
 * relayed as the upstream wrote it (all choices, tool calls, logprobs, refusal, fingerprint), the
 * caller putting its own id, model and created in front; failures become 502 `upstream_error`
 * without the upstream's key or body; a caller that goes away aborts the call.
 */
import { request as undiciRequest, type Dispatcher } from "undici";
import { upstreamFailed } from "../../errors.js";
import type { LlmSpec } from "./agent-spec.js";
import { membersAfterHead } from "./answer-members.js";
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
  // Every field the client sent goes as it is: the upstream knows them all.
  const body: Record<string, unknown> = { ...request.fields, model: spec.model, messages, stream };
  // The usage is always asked for (metering, token limits); whether the client sees it is its choice.
  if (stream) body.stream_options = { ...(request.fields?.stream_options as object | null | undefined), include_usage: true };
  // Upstreams refuse both limits at once; the current name wins, as it does for offline agents.
  if (body.max_completion_tokens != null) body.max_tokens = undefined;
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
        signal: ctx.upstreamSignal,
        dispatcher: upstream.dispatcher,
      });
    } catch (err) {
      if (ctx.upstreamSignal.aborted) throw err;
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
  let text: string;
  let json: UpstreamChunk;
  try {
    text = await res.body.text();
    json = JSON.parse(text) as UpstreamChunk;
  } catch {
    onError("bad_response");
    throw upstreamFailed("its response was not valid JSON");
  }
  const members = membersAfterHead(text);
  if (!Array.isArray(json.choices) || !json.choices.length || members === undefined) {
    onError("bad_response");
    throw upstreamFailed("its response had no choices");
  }
  let content = "";
  for (const choice of json.choices) content += choice.message?.content ?? "";
  yield { type: "completion", members, text: content };
  yield await usageEvent(json.usage, request, content);
}
