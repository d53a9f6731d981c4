/**
 * The JSON reply: the agent's whole answer as one response object, stored first when `store` is
 * on (so the client may continue from it at once, on any replica). The chat JSON path's run
 * (chat/completions/run.ts): a client that leaves stops the agent, and the run is settled however
 * it ends.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError } from "../../../errors.js";
import { finished, outputItems, responseUsage } from "../../../domain/responses/response-object.js";
import type { ResponseStore } from "../../../domain/responses/response-store.js";
import type { MeteredRun } from "../../../domain/limits/metered-run.js";
import { collect } from "../chat/completions/collect.js";
import { ChatRun } from "../chat/completions/run.js";
import { answerOf } from "./answer.js";
import type { PreparedRun } from "./prepare.js";

export async function jsonResponse(
  request: FastifyRequest,
  reply: FastifyReply,
  prepared: PreparedRun,
  metered: MeteredRun,
  store: ResponseStore,
) {
  const run = new ChatRun(request, prepared.agent, { ...prepared.chat, stream: false }, metered, false);
  const onClose = () => reply.raw.writableFinished || run.stop.stop();
  reply.raw.once("close", onClose);
  try {
    const collected = await collect(run.events, metered);
    run.end("ok");
    const answer = answerOf(collected);
    const response = finished(
      prepared.response,
      outputItems(answer),
      answer.finishReason,
      responseUsage(collected.usage),
    );
    if (response.store) await store.save(request.auth.projectId, response, prepared.items);
    // Sent as written: the output items are open objects the serializer would only copy.
    return reply.type("application/json").send(JSON.stringify(response));
  } catch (err) {
    run.end(run.stop.aborted ? "client_closed" : "error");
    const shutdown = run.shutdownError();
    if (shutdown) throw shutdown;
    if (run.stop.aborted && !(err instanceof ApiError)) {
      request.log.info({ agent: prepared.agent.id }, "client closed the request");
      return reply.hijack();
    }
    throw err;
  } finally {
    reply.raw.off("close", onClose);
  }
}
