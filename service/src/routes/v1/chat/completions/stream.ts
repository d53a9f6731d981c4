/**
 * The streaming reply: SSE exactly as the OpenAI SDKs read it. Role chunk first (with the headers,
 * at once), content deltas, a last chunk with `finish_reason`, the usage chunk when asked, [DONE];
 * an `llm` agent's upstream chunks are relayed as they are, under our head.
 * A failure after the headers is an `error` event; a client that leaves aborts the agent.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError, internalError } from "../../../../errors.js";
import type { Agent, ChatRequest } from "../../../../domain/agents/types.js";
import { SseWriter } from "../../../../sse/sse-writer.js";
import { ChunkWriter, completionId } from "./chunks.js";
import { ChatRun } from "./run.js";
import { usageOf, type Usage } from "./usage.js";
import type { ChatOutcome } from "../../../../plugins/metrics.js";
import type { MeteredRun } from "../../../../domain/limits/metered-run.js";

export async function streamCompletion(
  request: FastifyRequest,
  reply: FastifyReply,
  agent: Agent,
  chat: ChatRequest,
  metered: MeteredRun,
  model: string,
  includeUsage: boolean,
): Promise<void> {
  const { heartbeatSeconds } = request.server.config;
  reply.hijack();
  const run = new ChatRun(request, agent, chat, metered, true);
  const sse = new SseWriter(reply.raw, {
    heartbeatMs: heartbeatSeconds * 1000,
    headers: reply.getHeaders(),
    onClientGone: run.stop,
  });
  const chunks = new ChunkWriter(completionId(), Math.floor(Date.now() / 1000), model);

  const metrics = request.server.chatMetrics;
  metrics.streamOpened();
  const timing = metrics.streamTiming(agent.modelId);
  let outcome: ChatOutcome = "ok";
  let usage: Usage | undefined;
  let usageChunk: string | undefined;
  try {
    // An upstream's own chunks carry the role: its stream starts with the headers alone, once the
    // upstream has answered.
    if (agent.kind !== "llm") sse.data(chunks.role());
    for await (const event of run.events) {
      metered.saw(event);
      let ok = true;
      if (event.type === "answering") {
        sse.open();
        continue;
      } else if (event.type === "chunks") {
        if (event.text) timing.token(reply.elapsedTime);
        for (const members of event.chunks) ok = sse.data(chunks.relay(members));
      } else if (event.type === "content") {
        timing.token(reply.elapsedTime);
        ok = sse.data(chunks.content(event.text));
      } else if (event.type === "contents") {
        for (const text of event.texts) {
          timing.token(reply.elapsedTime);
          ok = sse.data(chunks.content(text));
        }
      } else if (event.type === "tool_calls") ok = sse.data(chunks.toolCalls(event.toolCalls));
      else if (event.type === "usage") {
        usage = usageOf(event);
        usageChunk = event.chunk;
        continue;
      } else if (event.type === "finish") ok = sse.data(chunks.finish(event.reason));
      if (!ok) {
        if (sse.closed) break;
        await sse.drained();
      }
    }
    const shutdown = run.shutdownError();
    if (shutdown) throw shutdown;
    if (sse.closed) outcome = "client_closed";
    else {
      // The upstream is always asked for its usage; the client gets it only if it asked too.
      if (includeUsage && usage) sse.data(usageChunk === undefined ? chunks.usage(usage) : chunks.relay(usageChunk));
      sse.data("[DONE]");
    }
  } catch (err) {
    outcome = sse.closed ? "client_closed" : "error";
    if (sse.closed) {
      request.log.info({ agent: agent.id }, "client closed the stream");
    } else {
      const apiError = run.shutdownError() ?? (err instanceof ApiError ? err : internalError(request.id));
      if (apiError.statusCode >= 500 && !(err instanceof ApiError)) request.log.error({ err }, "stream failed");
      else request.log.warn({ code: apiError.code }, apiError.message);
      sse.data(JSON.stringify(apiError.toJSON()));
    }
  } finally {
    run.end(outcome);
    metrics.streamClosed();
    sse.end();
  }
}
