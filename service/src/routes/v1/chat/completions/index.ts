/** POST /v1/chat/completions: the `model` selects the agent; `stream` selects JSON or SSE. */
import type { ServerResponse } from "node:http";
import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { ApiError, modelNotFound, unavailable } from "../../../../errors.js";
import { toChatRequest } from "./chat-request.js";
import { completionId } from "./chunks.js";
import { collect } from "./collect.js";
import { ChatBody, ChatCompletion } from "./schema.js";
import { agentContext } from "./agent-context.js";
import { Stopper } from "./stop-signal.js";
import { streamCompletion } from "./stream.js";

/**
 * The client left before the answer was written. Bound per request instead of a closure: the
 * TypeScript runner keeps function names, which costs a defineProperty per closure per request.
 */
function stopUnlessFinished(raw: ServerResponse, stop: Stopper): void {
  if (!raw.writableFinished) stop.stop();
}

export default async function chatCompletionsRoutes(instance: FastifyInstance) {
  // Handlers get their request types from the route schemas.
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  // The body is JSON: a text/plain one is a 415, not a string that fails the schema as "must be object".
  app.removeContentTypeParser("text/plain");
  app.post("/chat/completions", { schema: { body: ChatBody, response: { 200: ChatCompletion } } }, async (request, reply) => {
    const body = request.body;
    const agent = app.agents.resolve(request.auth.projectId, body.model);
    if (!agent) throw modelNotFound(body.model);
    const chat = toChatRequest(body, agent.kind);
    if (body.stream === true) return streamCompletion(request, reply, agent, chat, body.model, body.stream_options?.include_usage === true);

    // The agent stops when the client leaves or the shutdown deadline passes.
    const stop = new Stopper(app.drainDeadline);
    const onClose = stopUnlessFinished.bind(null, reply.raw, stop);
    reply.raw.once("close", onClose);
    try {
      const result = await collect(agent.run(chat, agentContext(request, stop)));
      app.chatMetrics.completed(agent.modelId, false, "ok");
      return {
        id: completionId(),
        object: "chat.completion" as const,
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        system_fingerprint: null,
        choices: [
          {
            index: 0,
            message: {
              role: "assistant" as const,
              content: result.content || (result.toolCalls ? null : ""),
              refusal: null,
              ...(result.toolCalls && { tool_calls: result.toolCalls }),
            },
            logprobs: null,
            finish_reason: result.finishReason,
          },
        ],
        usage: result.usage,
      };
    } catch (err) {
      app.chatMetrics.completed(agent.modelId, false, stop.aborted ? "client_closed" : "error");
      if (app.drainDeadline.aborted) throw unavailable("The server is shutting down; retry the request.");
      if (stop.aborted && !(err instanceof ApiError)) {
        request.log.info({ agent: agent.id }, "client closed the request");
        return reply.hijack();
      }
      throw err;
    } finally {
      reply.raw.off("close", onClose);
      stop.release();
    }
  });
}
