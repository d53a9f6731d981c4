/**
 * Forwarded runs (an `llm` agent whose upstream has its own Responses API): the upstream's answer
 * relayed under this server's response id, model and store fields, stored here before its last
 * event. Metered like every run: the upstream's reported usage, else the text relayed so far. A
 * refusal before the upstream answers is an HTTP error as for JSON; once events flow, a failure
 * is `response.failed`. A client that leaves aborts the upstream call.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError, internalError, unavailable, upstreamFailed } from "../../../errors.js";
import type { ForwardedResponse } from "../../../domain/agents/types.js";
import { adopted, failed, reportedUsage } from "../../../domain/responses/response-object.js";
import type { ResponseStore } from "../../../domain/responses/response-store.js";
import type { ResponseObject } from "../../../domain/responses/types.js";
import type { MeteredRun } from "../../../domain/limits/metered-run.js";
import type { ChatOutcome } from "../../../plugins/metrics.js";
import { SseWriter } from "../../../sse/sse-writer.js";
import { agentContext } from "../chat/completions/agent-context.js";
import { Stopper } from "../chat/completions/stop-signal.js";
import type { PreparedRun } from "./prepare.js";

const TERMINAL = new Set(["response.completed", "response.incomplete", "response.failed"]);

/** The run's usage: the upstream's count, else its output text's characters. */
function meter(metered: MeteredRun, response: ResponseObject): void {
  const usage = reportedUsage(response);
  if (usage) return metered.saw({ type: "usage", ...usage });
  for (const item of response.output ?? []) {
    if (item.type === "message")
      for (const part of item.content ?? [])
        if (part.type === "output_text") metered.saw({ type: "content", text: part.text });
  }
}

/** Stores a finished response (not a failed one) when the request asked to keep it. */
async function keep(
  store: ResponseStore,
  request: FastifyRequest,
  prepared: PreparedRun,
  response: ResponseObject,
): Promise<void> {
  if (response.store && response.status !== "failed")
    await store.save(request.auth.projectId, response, prepared.items);
}

/** Asks the upstream; the caller's stop aborts it. Errors before its answer are the caller's to map. */
async function ask(
  request: FastifyRequest,
  prepared: PreparedRun,
  stop: Stopper,
  stream: boolean,
): Promise<ForwardedResponse> {
  return prepared.agent.forwardResponses!(prepared.chat, agentContext(request, stop), stream);
}

/** A failure before any byte went out, as the JSON route maps it. */
function refusal(request: FastifyRequest, reply: FastifyReply, stop: Stopper, err: unknown) {
  if (request.server.drainDeadline.aborted) throw unavailable("The server is shutting down; retry the request.");
  if (stop.aborted && !(err instanceof ApiError)) {
    request.log.info("client closed the request");
    return reply.hijack();
  }
  throw err;
}

export async function forwardJson(
  request: FastifyRequest,
  reply: FastifyReply,
  prepared: PreparedRun,
  metered: MeteredRun,
  store: ResponseStore,
) {
  const stop = new Stopper(request.server.drainDeadline);
  const onClose = () => reply.raw.writableFinished || stop.stop();
  reply.raw.once("close", onClose);
  try {
    const answer = await ask(request, prepared, stop, false);
    const response = adopted(prepared.response, "json" in answer ? answer.json : {});
    meter(metered, response);
    metered.end("ok", false);
    await keep(store, request, prepared, response);
    return reply.type("application/json").send(JSON.stringify(response));
  } catch (err) {
    metered.end(stop.aborted ? "client_closed" : "error", false);
    return refusal(request, reply, stop, err);
  } finally {
    reply.raw.off("close", onClose);
    stop.release();
  }
}

export async function forwardStream(
  request: FastifyRequest,
  reply: FastifyReply,
  prepared: PreparedRun,
  metered: MeteredRun,
  store: ResponseStore,
) {
  const stop = new Stopper(request.server.drainDeadline);
  let answer: ForwardedResponse;
  try {
    answer = await ask(request, prepared, stop, true);
  } catch (err) {
    metered.end(stop.aborted ? "client_closed" : "error", true);
    stop.release();
    return refusal(request, reply, stop, err);
  }
  reply.hijack();
  const sse = new SseWriter(reply.raw, {
    heartbeatMs: request.server.config.heartbeatSeconds * 1000,
    headers: reply.getHeaders(),
    onClientGone: stop,
  });
  const metrics = request.server.chatMetrics;
  metrics.streamOpened();
  let outcome: ChatOutcome = "ok";
  let last: { type: string; response: ResponseObject; sequence_number: number } | undefined;
  try {
    for await (const event of "events" in answer ? answer.events : []) {
      const ours =
        typeof event.response === "object" && event.response !== null
          ? adopted(prepared.response, event.response as Record<string, unknown>)
          : undefined;
      if (ours) event.response = ours;
      if (event.type === "response.output_text.delta" && typeof event.delta === "string")
        metered.saw({ type: "content", text: event.delta });
      if (ours && TERMINAL.has(event.type as string)) {
        meter(metered, ours);
        await keep(store, request, prepared, ours);
      }
      last = {
        type: event.type as string,
        response: ours ?? last?.response ?? prepared.response,
        sequence_number: Number(event.sequence_number) || 0,
      };
      if (!sse.named(event.type as string, JSON.stringify(event))) {
        if (sse.closed) break;
        await sse.drained();
      }
    }
    if (sse.closed) outcome = "client_closed";
    else if (!last || !TERMINAL.has(last.type))
      throw upstreamFailed("its stream ended before the response was complete");
  } catch (err) {
    outcome = sse.closed ? "client_closed" : "error";
    if (!sse.closed) {
      const apiError = request.server.drainDeadline.aborted
        ? unavailable("The server is shutting down; the answer was cut short. Retry the request.")
        : err instanceof ApiError
          ? err
          : internalError(request.id);
      if (!(err instanceof ApiError)) request.log.error({ err }, "forwarded response stream failed");
      const response = failed(
        last?.response ?? prepared.response,
        last?.response.output ?? [],
        apiError.code ?? apiError.type,
        apiError.message,
      );
      sse.named(
        "response.failed",
        JSON.stringify({ type: "response.failed", sequence_number: (last?.sequence_number ?? -1) + 1, response }),
      );
    }
  } finally {
    metered.end(outcome, true);
    metrics.streamClosed();
    stop.release();
    sse.end();
  }
}
