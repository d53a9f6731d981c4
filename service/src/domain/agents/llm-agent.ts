/**
 * `llm`: forwards the conversation to an upstream OpenAI-compatible endpoint with the agent's
 * system prompt and upstream model, with every other field of the request as sent. The answer is
 * relayed as the upstream wrote it (all choices, tool calls, logprobs, refusal, fingerprint), the
 * caller putting its own id, model and created in front; failures become 502 `upstream_error`
 * without the upstream's key or body; a caller that goes away aborts the call. Before the answer
 * begins, a failed call is retried and then passed to the agent's fallbacks (upstream-retry.ts).
 */
import { request as undiciRequest, type Dispatcher } from "undici";
import { upstreamFailed } from "../../errors.js";
import { DEFAULT_RETRIES, type LlmSpec } from "./agent-spec.js";
import { tracedUpstream } from "../../telemetry/upstream-span.js";
import { membersAfterHead } from "./answer-members.js";
import { fromStream } from "./llm-stream.js";
import { retryable, sendWithRetries, type RetryListener, type UpstreamCaller } from "./upstream-retry.js";
import type { UpstreamGuard } from "./upstream-guard.js";
import type { Agent, AgentContext, AgentEvent, AgentInfo, ChatMessage, ChatRequest } from "./types.js";
import {
  choicesProblem,
  codeForLog,
  connectFailure,
  upstreamRefusal,
  usageEvent,
  type UpstreamChunk,
  type UpstreamErrorListener,
} from "./upstream-wire.js";

export interface Upstream {
  /** Base URL without a trailing slash; requests go to `${baseUrl}/chat/completions`. */
  baseUrl: string;
  apiKey?: string;
  /** Shared keep-alive connection pool. */
  dispatcher: Dispatcher;
  /** Told of each failed call (the metrics). */
  onError?: UpstreamErrorListener;
  /** The upstream's circuit breaker and retry budget (one per agent, whichever endpoint is called). */
  guard?: UpstreamGuard;
}

function upstreamBody(spec: LlmSpec, request: ChatRequest, stream: boolean): string {
  const messages: ChatMessage[] = spec.system_prompt
    ? [{ role: "system", content: spec.system_prompt }, ...request.messages]
    : request.messages;
  // Every field the client sent goes as it is: the upstream knows them all.
  const body: Record<string, unknown> = { ...request.fields, model: spec.model, messages, stream };
  // The usage is always asked for (metering, token limits); whether the client sees it is its choice.
  if (stream)
    body.stream_options = { ...(request.fields?.stream_options as object | null | undefined), include_usage: true };
  // Upstreams refuse both limits at once; the current name wins, as it does for offline agents.
  if (body.max_completion_tokens != null) body.max_tokens = undefined;
  return JSON.stringify(body);
}

/** Where an upstream call goes and what it sends: chat completions, or the upstream's own Responses API (llm-responses.ts). */
export interface UpstreamEndpoint {
  /** After the base URL, e.g. `/chat/completions`. */
  path: string;
  body(spec: LlmSpec, request: ChatRequest, stream: boolean): string;
}

export const CHAT_COMPLETIONS: UpstreamEndpoint = { path: "/chat/completions", body: upstreamBody };

/**
 * The legacy text completions of an upstream that has them: the client's body as sent, with the
 * agent's upstream model, and the usage always asked for on a stream. No system prompt: a prompt
 * is raw text, with no place for one.
 */
function textCompletionBody(spec: LlmSpec, request: ChatRequest, stream: boolean): string {
  const body: Record<string, unknown> = { ...request.fields, model: spec.model, stream };
  if (stream)
    body.stream_options = { ...(request.fields?.stream_options as object | null | undefined), include_usage: true };
  return JSON.stringify(body);
}

export const TEXT_COMPLETIONS: UpstreamEndpoint = { path: "/completions", body: textCompletionBody };

/** One llm agent's upstream, as its own agent and the agents falling back to it call it. */
export function upstreamCaller(
  agentId: string,
  spec: LlmSpec,
  upstream: Upstream,
  endpoint: UpstreamEndpoint = CHAT_COMPLETIONS,
): UpstreamCaller {
  const url = `${upstream.baseUrl}${endpoint.path}`;
  const spanName = `POST ${endpoint.path}`;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  if (upstream.apiKey) headers.authorization = `Bearer ${upstream.apiKey}`;
  const onError = upstream.onError ?? (() => {});

  /**
   * One call of the upstream: resolves once it answered 2xx with its headers, which must come
   * within `headersTimeout` ms. A failure worth another try is marked `retryable`.
   */
  async function send(
    request: ChatRequest,
    ctx: AgentContext,
    stream: boolean,
    headersTimeout: number,
  ): Promise<Dispatcher.ResponseData> {
    let res: Dispatcher.ResponseData;
    try {
      res = await tracedUpstream(
        url,
        headers,
        (headers) =>
          undiciRequest(url, {
            method: "POST",
            headers,
            body: endpoint.body(spec, request, stream),
            signal: ctx.upstreamSignal,
            dispatcher: upstream.dispatcher,
            headersTimeout,
          }),
        spanName,
      );
    } catch (err) {
      if (ctx.upstreamSignal.aborted) throw err;
      throw retryable(connectFailure(err, onError), (err as { code?: string }).code ?? "connection");
    }
    if (res.statusCode >= 400) {
      onError(String(res.statusCode));
      const detail = await readCapped(res, MAX_REFUSAL_BYTES)
        .then((text) => JSON.parse(text) as UpstreamChunk)
        .catch(() => undefined);
      ctx.log.warn(
        { agent: agentId, upstreamStatus: res.statusCode, upstreamCode: codeForLog(detail?.error?.code) },
        "upstream refused the request",
      );
      const header = res.headers["retry-after"];
      const retryAfter = typeof header === "string" ? header : undefined;
      const refusal = upstreamRefusal(res.statusCode, detail, retryAfter, upstream.apiKey);
      // Rate limits and server errors pass; anything else would fail again the same way.
      throw res.statusCode === 429 || res.statusCode >= 500
        ? retryable(refusal, String(res.statusCode), retryAfter)
        : refusal;
    }
    return res;
  }

  return {
    agentId,
    retries: spec.retries ?? DEFAULT_RETRIES,
    send,
    onError,
    projects: spec.projects && new Set(spec.projects),
    guard: upstream.guard,
  };
}

const QUIET: RetryListener = { attempt() {}, fallback() {} };

/**
 * An llm agent: its own upstream first, then its fallbacks' (`callers`, in order), each tried
 * with retries before the answer begins, all within `budgetMs` (LLM_TIMEOUT_SECONDS).
 */
export function llmAgent(
  info: AgentInfo,
  callers: UpstreamCaller[],
  budgetMs: number,
  listener: RetryListener = QUIET,
): Agent {
  const onError = callers[0].onError;
  const answer = async (request: ChatRequest, ctx: AgentContext, stream: boolean) => {
    const { res, caller } = await sendWithRetries(callers, request, ctx, stream, budgetMs, listener);
    ctx.answeredBy?.(caller.agentId);
    return res;
  };
  return {
    ...info,
    // One generator per call, no delegation: every event costs one hop to the caller.
    run: (request, ctx) =>
      request.stream === false
        ? fromJson(() => answer(request, ctx, false), request, onError)
        : fromStream(() => answer(request, ctx, true), request, ctx, onError),
  };
}

/**
 * The most of a JSON answer held in memory. An answer is parsed whole, so it costs several times
 * its size; 32 MiB leaves room for many choices with log probabilities, and a replica serving a
 * few at once stays well inside its memory limit.
 */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;
/** An error body is read for its message only. */
const MAX_REFUSAL_BYTES = 64 * 1024;

class AnswerTooLarge extends Error {}
const ignore = () => {};

/**
 * The body as text, or AnswerTooLarge once it passes `max` bytes (the upstream request is then
 * dropped). Read from its data events into one promise: an async iterator costs a promise per
 * chunk and a stream-end watcher per answer.
 */
export function readCapped(res: Dispatcher.ResponseData, max: number): Promise<string> {
  const body = res.body;
  if (Number(res.headers["content-length"]) > max) {
    body.destroy();
    return Promise.reject(new AnswerTooLarge());
  }
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let bytes = 0;
    const fail = (err: Error) => {
      // Its own error on being destroyed now is expected: heard, not thrown.
      body.off("data", onData).off("end", onEnd).off("close", onClose).on("error", ignore);
      if (!body.readableEnded) body.destroy();
      reject(err);
    };
    const onData = (part: Buffer) => {
      bytes += part.length;
      if (bytes > max) return fail(new AnswerTooLarge());
      parts.push(part);
    };
    const onEnd = () => {
      body.off("error", fail).off("close", onClose);
      resolve(parts.length === 1 ? parts[0].toString("utf8") : Buffer.concat(parts).toString("utf8"));
    };
    // Closed before its end without an error (destroyed by the caller).
    const onClose = () => fail(new Error("the answer was cut short"));
    body.on("data", onData).once("end", onEnd).once("error", fail).once("close", onClose);
  });
}

async function* fromJson(
  send: () => Promise<Dispatcher.ResponseData>,
  request: ChatRequest,
  onError: UpstreamErrorListener,
): AsyncGenerator<AgentEvent> {
  const res = await send();
  let text: string;
  let json: UpstreamChunk;
  try {
    text = await readCapped(res, MAX_ANSWER_BYTES);
    json = JSON.parse(text) as UpstreamChunk;
  } catch (err) {
    onError("bad_response");
    if (err instanceof AnswerTooLarge) throw upstreamFailed(`its response was over ${MAX_ANSWER_BYTES} bytes`);
    throw upstreamFailed("its response was not valid JSON");
  }
  const members = typeof json === "object" && json !== null ? membersAfterHead(text) : undefined;
  const problem = members === undefined ? "its response was not a JSON object" : choicesProblem(json.choices, true);
  if (problem) {
    onError("bad_response");
    throw upstreamFailed(problem);
  }
  let content = "";
  for (const choice of json.choices!)
    content += typeof choice.message?.content === "string" ? choice.message.content : (choice.text ?? "");
  yield { type: "completion", members: members!, text: content };
  yield await usageEvent(json.usage, request, content);
}
