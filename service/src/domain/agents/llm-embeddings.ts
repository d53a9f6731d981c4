/**
 * An `llm` agent's embeddings (`embeddings: true`): the client's body goes to the upstream's
 * `/embeddings` as sent (batch input, encoding_format, dimensions, user), with the agent's
 * upstream model. The answer is checked against OpenAI's shape before it is relayed: a client's
 * vector store would otherwise store whatever a broken upstream said. Failures are mapped as for
 * chat (upstream-wire.ts); a caller that goes away aborts the call.
 */
import { request as undiciRequest, type Dispatcher } from "undici";
import { upstreamFailed } from "../../errors.js";
import type { LlmSpec } from "./agent-spec.js";
import { MAX_ANSWER_BYTES, readCapped, type Upstream } from "./llm-agent.js";
import type { AgentContext, AgentInfo, Embedding, Embeddings, EmbeddingsRequest } from "./types.js";
import { codeForLog, connectFailure, upstreamRefusal, type UpstreamChunk } from "./upstream-wire.js";

const MAX_REFUSAL_BYTES = 64 * 1024;

/** How many vectors a request asks for: one per string or token array. */
export function inputCount(input: EmbeddingsRequest["input"]): number {
  if (typeof input === "string") return 1;
  return input.length > 0 && typeof input[0] === "number" ? 1 : input.length;
}

/** What is wrong with an upstream's embeddings answer, or undefined when it is OpenAI's shape. */
export function embeddingsProblem(json: unknown, expected: number): string | undefined {
  const answer = json as { object?: unknown; data?: unknown } | null;
  if (answer?.object !== "list" || !Array.isArray(answer.data)) return "it is not a list of embeddings";
  if (answer.data.length !== expected) return `it has ${answer.data.length} embeddings for ${expected} inputs`;
  const seen = new Set<number>();
  for (const item of answer.data as Partial<Embedding>[]) {
    const vector = item?.embedding;
    const index = item?.index;
    const isVector =
      typeof vector === "string" || (Array.isArray(vector) && vector.every((x) => typeof x === "number"));
    if (item?.object !== "embedding" || !isVector) return "an item is not an embedding";
    if (!Number.isInteger(index) || index! < 0 || index! >= expected || seen.has(index!))
      return "an embedding's index is missing or wrong";
    seen.add(index!);
  }
  return undefined;
}

async function refusal(
  res: Dispatcher.ResponseData,
  upstream: Upstream,
  info: AgentInfo,
  ctx: AgentContext,
): Promise<Error> {
  upstream.onError?.(String(res.statusCode));
  const detail = await readCapped(res, MAX_REFUSAL_BYTES)
    .then((text) => JSON.parse(text) as UpstreamChunk)
    .catch(() => undefined);
  ctx.log.warn(
    { agent: info.id, upstreamStatus: res.statusCode, upstreamCode: codeForLog(detail?.error?.code) },
    "upstream refused the embeddings request",
  );
  const retryAfter = res.headers["retry-after"];
  return upstreamRefusal(
    res.statusCode,
    detail,
    typeof retryAfter === "string" ? retryAfter : undefined,
    upstream.apiKey,
  );
}

export function embeddingsCall(
  info: AgentInfo,
  spec: LlmSpec,
  upstream: Upstream,
): (request: EmbeddingsRequest, ctx: AgentContext) => Promise<Embeddings> {
  const url = `${upstream.baseUrl}/embeddings`;
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (upstream.apiKey) headers.authorization = `Bearer ${upstream.apiKey}`;
  const onError = upstream.onError ?? (() => {});

  return async (request, ctx) => {
    let res: Dispatcher.ResponseData;
    try {
      const body = JSON.stringify({ ...request, model: spec.model });
      res = await undiciRequest(url, {
        method: "POST",
        headers,
        body,
        signal: ctx.upstreamSignal,
        dispatcher: upstream.dispatcher,
      });
    } catch (err) {
      if (ctx.upstreamSignal.aborted) throw err;
      throw connectFailure(err, onError);
    }
    if (res.statusCode >= 400) throw await refusal(res, upstream, info, ctx);
    let json: { data: Embedding[]; usage?: { prompt_tokens?: unknown } };
    try {
      json = JSON.parse(await readCapped(res, MAX_ANSWER_BYTES)) as typeof json;
    } catch {
      onError("bad_response");
      throw upstreamFailed(`its embeddings response was not valid JSON of at most ${MAX_ANSWER_BYTES} bytes`);
    }
    const problem = embeddingsProblem(json, inputCount(request.input));
    if (problem) {
      onError("bad_response");
      throw upstreamFailed(`its embeddings response is not OpenAI's shape: ${problem}`);
    }
    const prompt = json.usage?.prompt_tokens;
    const data = json.data
      .map(({ object, index, embedding }) => ({ object, index, embedding }))
      .sort((a, b) => a.index - b.index);
    return { data, ...(typeof prompt === "number" && prompt >= 0 && { promptTokens: prompt }) };
  };
}
