/**
 * The streaming reply: `event:` + `data:` SSE events as OpenAI streams a response, headers at once
 * with `response.created`, heartbeats while the agent is silent (sse-writer.ts). The response is
 * stored before its last event, so a client that reads `response.completed` can continue from it.
 * A failure after the headers is `response.failed`; a client that leaves stops the agent.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError, internalError, upstreamFailed } from "../../../errors.js";
import { responseUsage } from "../../../domain/responses/response-object.js";
import type { ResponseStore } from "../../../domain/responses/response-store.js";
import { OutputTooLarge, ResponseEvents } from "../../../domain/responses/stream-events.js";
import type { StreamEvent } from "../../../domain/responses/types.js";
import type { MeteredRun } from "../../../domain/limits/metered-run.js";
import type { ChatOutcome } from "../../../plugins/metrics.js";
import { SseWriter } from "../../../sse/sse-writer.js";
import { ChatRun } from "../chat/completions/run.js";
import { usageOf, type Usage } from "../chat/completions/usage.js";
import { deltas } from "./answer.js";
import type { PreparedRun } from "./prepare.js";

/** Writes events; false when the socket wants a drain first. */
function send(sse: SseWriter, events: StreamEvent[]): boolean {
  let ok = true;
  for (const event of events) ok = sse.named(event.type, JSON.stringify(event));
  return ok;
}

/** Relays the run's answer as response events; resolves with its usage (undefined if none came) and finish reason. */
async function relay(
  run: ChatRun,
  sse: SseWriter,
  events: ResponseEvents,
  onText: () => void,
): Promise<{ usage?: Usage; finish: string }> {
  let usage: Usage | undefined;
  let finish = "stop";
  for await (const event of run.events) {
    run.metered.saw(event);
    if (event.type === "usage") usage = usageOf(event);
    let ok = true;
    for (const delta of deltas(event)) {
      if (delta.text) {
        onText();
        ok = send(sse, events.text(delta.text));
      }
      if (delta.refusal) events.refused(delta.refusal);
      for (const call of delta.toolCalls ?? []) ok = send(sse, events.toolCall(call));
      if (delta.finishReason) finish = delta.finishReason;
    }
    if (!ok) {
      if (sse.closed) break;
      await sse.drained();
    }
  }
  return { usage, finish };
}

export async function streamResponse(
  request: FastifyRequest,
  reply: FastifyReply,
  prepared: PreparedRun,
  metered: MeteredRun,
  store: ResponseStore,
): Promise<void> {
  reply.hijack();
  const run = new ChatRun(request, prepared.agent, { ...prepared.chat, stream: true }, metered, true);
  const sse = new SseWriter(reply.raw, {
    heartbeatMs: request.server.config.heartbeatSeconds * 1000,
    headers: reply.getHeaders(),
    onClientGone: run.stop,
  });
  const events = new ResponseEvents(prepared.response);
  const metrics = request.server.chatMetrics;
  metrics.streamOpened();
  const timing = metrics.streamTiming(prepared.agent.modelId);
  let outcome: ChatOutcome = "ok";
  try {
    send(sse, events.start());
    const { usage, finish } = await relay(run, sse, events, () => timing.token(reply.elapsedTime));
    const shutdown = run.shutdownError();
    if (shutdown) throw shutdown;
    if (sse.closed) outcome = "client_closed";
    else {
      const last = events.finish(finish, responseUsage(usage ?? metered.usage));
      if (events.result.store) await store.save(request.auth.projectId, events.result, prepared.items);
      send(sse, last);
    }
  } catch (err) {
    outcome = sse.closed ? "client_closed" : "error";
    if (sse.closed) request.log.info({ agent: prepared.agent.id }, "client closed the stream");
    else {
      const tooLarge = err instanceof OutputTooLarge ? upstreamFailed(err.message) : undefined;
      const apiError = run.shutdownError() ?? tooLarge ?? (err instanceof ApiError ? err : internalError(request.id));
      if (apiError.statusCode >= 500 && !(err instanceof ApiError))
        request.log.error({ err }, "response stream failed");
      else request.log.warn({ code: apiError.code }, apiError.message);
      send(sse, events.fail(apiError.code ?? apiError.type, apiError.message));
    }
  } finally {
    run.end(outcome);
    metrics.streamClosed();
    sse.end();
  }
}
