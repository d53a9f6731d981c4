/** POST /v1/chat/completions: the `model` selects the agent; `stream` selects JSON or SSE. */
import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { chatAgent } from "../../../../domain/agents/chat-agent.js";
import { toChatRequest } from "./chat-request.js";
import { jsonCompletion } from "./json.js";
import { ChatBody, ChatCompletion } from "./schema.js";
import { streamCompletion } from "./stream.js";
import { responses } from "../../../responses.js";

export default async function chatCompletionsRoutes(instance: FastifyInstance) {
  // Handlers get their request types from the route schemas.
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  // The body is JSON: a text/plain one is a 415, not a string that fails the schema as "must be object".
  app.removeContentTypeParser("text/plain");
  // The request is the run: its request unit and tokens are reserved together once the agent is
  // known. A request refused before that (its body, its model) still costs its request unit.
  app.post(
    "/chat/completions",
    {
      schema: { body: ChatBody, response: responses({ 200: ChatCompletion }) },
      attachValidation: true,
      config: { meteredRun: true },
    },
    async (request, reply) => {
      const body = request.body;
      let agent, chat;
      try {
        if (request.validationError) throw request.validationError;
        agent = chatAgent(app.agents, request.auth.projectId, body.model);
        chat = toChatRequest(body, agent.kind);
      } catch (err) {
        await app.keyLimits.countRequest(request, reply);
        throw err;
      }
      const maxTokens = body.max_completion_tokens ?? body.max_tokens ?? undefined;
      const { run, headers } = await app.keyLimits.startRun(request.auth, {
        model: agent.modelId,
        messages: chat.messages,
        maxTokens,
        agentCap: agent.maxCompletionTokens,
      });
      void reply.headers(headers);
      if (body.stream === true)
        return streamCompletion(
          request,
          reply,
          agent,
          chat,
          run,
          body.model,
          body.stream_options?.include_usage === true,
        );
      return jsonCompletion(request, reply, agent, chat, run, body.model);
    },
  );
}
