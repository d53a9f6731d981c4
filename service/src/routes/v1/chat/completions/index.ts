/** POST /v1/chat/completions: the `model` selects the agent; `stream` selects JSON or SSE. */
import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { modelNotFound } from "../../../../errors.js";
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
  // The key's tokens this minute are checked before the body is even validated: a spent key costs nothing.
  app.post("/chat/completions", { schema: { body: ChatBody, response: responses({ 200: ChatCompletion }) }, onRequest: app.checkKeyTokens }, async (request, reply) => {
    const body = request.body;
    const agent = app.agents.resolve(request.auth.projectId, body.model);
    if (!agent) throw modelNotFound(body.model);
    const chat = toChatRequest(body, agent.kind);
    if (body.stream === true) return streamCompletion(request, reply, agent, chat, body.model, body.stream_options?.include_usage === true);
    return jsonCompletion(request, reply, agent, chat, body.model);
  });
}
