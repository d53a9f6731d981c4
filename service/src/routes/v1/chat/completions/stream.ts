/**
 * The streaming reply: SSE exactly as the OpenAI SDKs read it. Role chunk first (with the headers,
 * at once), content deltas, a last chunk with `finish_reason`, the usage chunk when asked, [DONE].
 * A failure after the headers is an `error` event; a client that leaves aborts the agent.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError, internalError, unavailable } from "../../../../errors.js";
import type { Agent, ChatRequest } from "../../../../domain/agents/types.js";
import { SseWriter } from "../../../../sse/sse-writer.js";
import { agentContext } from "./agent-context.js";
import { ChunkWriter, completionId, type Usage } from "./chunks.js";
import { Stopper } from "./stop-signal.js";
import type { ChatOutcome } from "../../../../plugins/metrics.js";

export async function streamCompletion(
  request: FastifyRequest,
  reply: FastifyReply,
  agent: Agent,
  chat: ChatRequest,
  model: string,
  includeUsage: boolean,
): Promise<void> {
  const { heartbeatSeconds } = request.server.config;
  const deadline = request.server.drainDeadline;
  reply.hijack();
  // One controller stops the agent: the client leaving or the shutdown deadline aborts it.
  const stop = new Stopper(deadline);
  const sse = new SseWriter(reply.raw, { heartbeatMs: heartbeatSeconds * 1000, headers: reply.getHeaders(), onClientGone: stop });
  const chunks = new ChunkWriter(completionId(), Math.floor(Date.now() / 1000), model);

  const metrics = request.server.chatMetrics;
  metrics.streamOpened();
  let outcome: ChatOutcome = "ok";
  let firstTokenSeen = false;
  let usage: Usage | undefined;
  try {
    sse.data(chunks.role());
    for await (const event of agent.run(chat, agentContext(request, stop))) {
      let ok: boolean;
      if (event.type === "content") {
        if (!firstTokenSeen) {
          firstTokenSeen = true;
          metrics.firstToken(reply.elapsedTime / 1000);
        }
        ok = sse.data(chunks.content(event.text));
      } else if (event.type === "tool_calls") ok = sse.data(chunks.toolCalls(event.toolCalls));
      else if (event.type === "usage") {
        usage = { prompt_tokens: event.promptTokens, completion_tokens: event.completionTokens, total_tokens: event.promptTokens + event.completionTokens };
        continue;
      } else ok = sse.data(chunks.finish(event.reason));
      if (!ok) {
        if (sse.closed) break;
        await sse.drained();
      }
    }
    if (deadline.aborted) throw unavailable("The server is shutting down; the answer was cut short. Retry the request.");
    if (sse.closed) outcome = "client_closed";
    else {
      if (includeUsage && usage) sse.data(chunks.usage(usage));
      sse.data("[DONE]");
    }
  } catch (err) {
    outcome = sse.closed ? "client_closed" : "error";
    if (sse.closed) {
      request.log.info({ agent: agent.id }, "client closed the stream");
    } else {
      const apiError = deadline.aborted
        ? unavailable("The server is shutting down; the answer was cut short. Retry the request.")
        : err instanceof ApiError
          ? err
          : internalError(request.id);
      if (apiError.statusCode >= 500 && !(err instanceof ApiError)) request.log.error({ err }, "stream failed");
      else request.log.warn({ code: apiError.code }, apiError.message);
      sse.data(JSON.stringify(apiError.toJSON()));
    }
  } finally {
    metrics.completed(agent.modelId, true, outcome);
    metrics.streamClosed();
    stop.release();
    sse.end();
  }
}
