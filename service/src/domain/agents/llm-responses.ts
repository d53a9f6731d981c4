/**
 * An `llm` agent whose upstream has its own Responses API (`responses: true`): /v1/responses is
 * forwarded to the upstream's `/responses` with the agent's upstream model, the conversation
 * rebuilt here in `input` and `store: false` (this server keeps the response, so any replica can
 * continue it), the agent's system prompt first. The same retries and fallbacks as chat (the
 * fallbacks that also declare `responses: true`), the same caps and checks on the answer: a JSON
 * answer must be a response object, a stream's events JSON objects with a `type`.
 */
import type { Dispatcher } from "undici";
import { upstreamFailed } from "../../errors.js";
import type { LlmSpec } from "./agent-spec.js";
import { MAX_ANSWER_BYTES, readCapped, type UpstreamEndpoint } from "./llm-agent.js";
import { SseReader, type SseItem } from "../../sse/sse-reader.js";
import type { Agent, AgentContext, ChatRequest, ForwardedResponse } from "./types.js";
import { sendWithRetries, type RetryListener, type UpstreamCaller } from "./upstream-retry.js";
import { streamReadFailure, type UpstreamErrorListener } from "./upstream-wire.js";

type Json = Record<string, unknown>;

function responsesBody(spec: LlmSpec, request: ChatRequest, stream: boolean): string {
  const input: unknown[] = Array.isArray(request.fields?.input) ? (request.fields.input as unknown[]) : [];
  const system = spec.system_prompt ? [{ type: "message", role: "system", content: spec.system_prompt }] : [];
  return JSON.stringify({ ...request.fields, model: spec.model, input: [...system, ...input], stream, store: false });
}

export const RESPONSES_ENDPOINT: UpstreamEndpoint = { path: "/responses", body: responsesBody };

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

async function readResponse(res: Dispatcher.ResponseData, onError: UpstreamErrorListener): Promise<Json> {
  let json: unknown;
  try {
    json = JSON.parse(await readCapped(res, MAX_ANSWER_BYTES));
  } catch {
    onError("bad_response");
    throw upstreamFailed(`its response was not valid JSON of at most ${MAX_ANSWER_BYTES} bytes`);
  }
  if (!isObject(json) || !Array.isArray(json.output)) {
    onError("bad_response");
    throw upstreamFailed("its response was not a response object");
  }
  return json;
}

/** The events of SSE items: their data, each a JSON object with a `type` (comments and [DONE] skipped). */
function* parsed(items: SseItem[]): Generator<Json> {
  for (const item of items) {
    if (item.kind !== "data" || item.data === "[DONE]") continue;
    const event = JSON.parse(item.data) as unknown;
    if (!isObject(event) || typeof event.type !== "string")
      throw upstreamFailed("its stream sent an event that is not a Responses event");
    yield event;
  }
}

async function* readEvents(
  res: Dispatcher.ResponseData,
  ctx: AgentContext,
  onError: UpstreamErrorListener,
): AsyncGenerator<Json> {
  const reader = new SseReader();
  try {
    for await (const chunk of res.body) yield* parsed(reader.push(chunk as Uint8Array));
    yield* parsed(reader.end());
  } catch (err) {
    if (ctx.upstreamSignal.aborted) throw err;
    throw streamReadFailure(err, onError);
  } finally {
    if (!res.body.readableEnded) res.body.destroy();
  }
}

/** The agent's forwarder over its callers (its own upstream, then its Responses-capable fallbacks). */
export function responsesForwarder(
  callers: UpstreamCaller[],
  budgetMs: number,
  listener: RetryListener,
): NonNullable<Agent["forwardResponses"]> {
  const onError = callers[0].onError;
  return async (request, ctx, stream): Promise<ForwardedResponse> => {
    const { res, caller } = await sendWithRetries(callers, request, ctx, stream, budgetMs, listener);
    ctx.answeredBy?.(caller.agentId);
    return stream ? { events: readEvents(res, ctx, onError) } : { json: await readResponse(res, onError) };
  };
}
