/**
 * The JSON reply: the agent's whole answer as one chat.completion (an `llm` agent's upstream's own,
 * under our head). The twin of stream.ts over the same run (run.ts); a client that leaves stops
 * the agent, and nothing is written to it.
 */
import type { ServerResponse } from "node:http";
import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError } from "../../../../errors.js";
import type { Agent, ChatRequest } from "../../../../domain/agents/types.js";
import { completionId, ownCompletion, relayedCompletion } from "./chunks.js";
import { collect } from "./collect.js";
import { ChatRun } from "./run.js";
import type { Stopper } from "./stop-signal.js";
import type { MeteredRun } from "../../../../domain/limits/metered-run.js";

/**
 * The client left before the answer was written. Bound per request instead of a closure: the
 * TypeScript runner keeps function names, which costs a defineProperty per closure per request.
 */
function stopUnlessFinished(raw: ServerResponse, stop: Stopper): void {
  if (!raw.writableFinished) stop.stop();
}

export async function jsonCompletion(
  request: FastifyRequest,
  reply: FastifyReply,
  agent: Agent,
  chat: ChatRequest,
  metered: MeteredRun,
  model: string,
) {
  const run = new ChatRun(request, agent, chat, metered, false);
  const onClose = stopUnlessFinished.bind(null, reply.raw, run.stop);
  reply.raw.once("close", onClose);
  try {
    const result = await collect(run.events, metered);
    run.end("ok");
    const id = completionId();
    const created = Math.floor(Date.now() / 1000);
    // A string with a JSON type is sent as it is: neither answer goes through the serializer.
    const body =
      result.relayed !== undefined
        ? relayedCompletion(id, created, model, result.relayed)
        : ownCompletion(id, created, model, {
            content: result.content || (result.toolCalls ? null : ""),
            toolCalls: result.toolCalls,
            finishReason: result.finishReason,
            usage: result.usage,
          });
    return reply.type("application/json").send(body);
  } catch (err) {
    run.end(run.stop.aborted ? "client_closed" : "error");
    const shutdown = run.shutdownError();
    if (shutdown) throw shutdown;
    if (run.stop.aborted && !(err instanceof ApiError)) {
      request.log.info({ agent: agent.id }, "client closed the request");
      return reply.hijack();
    }
    throw err;
  } finally {
    reply.raw.off("close", onClose);
  }
}
