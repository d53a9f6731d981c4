/**
 * /v1/responses — OpenAI's Responses API over the project's agents: POST runs the agent named by
 * `model` (JSON or SSE events), GET and DELETE a stored response, GET its input items. A run is
 * one metered run like a chat completion (plugins/key-limits.ts). Stored responses are scoped to
 * the key's project: another project's id is a 404 like an unknown one.
 */
import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { responseNotFound } from "../../../errors.js";
import { listedItem } from "../../../domain/responses/input-items.js";
import { responses } from "../../responses.js";
import { forwardJson, forwardStream } from "./forward.js";
import { jsonResponse } from "./json.js";
import { prepareRun, refuseOverQuota, type PreparedRun } from "./prepare.js";
import { DeletedResponse, InputItemList, ResponseIdParams, ResponseObject, ResponsesBody } from "./schema.js";
import { streamResponse } from "./stream.js";

const InputItemsQuery = Type.Object({
  after: Type.Optional(Type.String({ maxLength: 256 })),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  order: Type.Union([Type.Literal("asc"), Type.Literal("desc")], { default: "desc" }),
});

export default async function responsesRoutes(instance: FastifyInstance) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  app.removeContentTypeParser("text/plain");
  const store = app.responses;

  // As for chat: the request is the run, reserved once the agent is known; a request refused
  // before that still costs its request unit.
  app.post(
    "/responses",
    {
      schema: { body: ResponsesBody, response: responses({ 200: ResponseObject }) },
      attachValidation: true,
      config: { meteredRun: true },
    },
    async (request, reply) => {
      const body = request.body;
      let prepared: PreparedRun;
      try {
        if (request.validationError) throw request.validationError;
        prepared = await prepareRun(app.agents, store, request.auth.projectId, body);
        await refuseOverQuota(store, request.auth.projectId, prepared, app.config.responsesProjectMaxBytes);
      } catch (err) {
        await app.keyLimits.countRequest(request, reply);
        throw err;
      }
      const { agent, chat } = prepared;
      const { run, headers } = await app.keyLimits.startRun(request.auth, {
        model: agent.modelId,
        messages: chat.messages,
        maxTokens: body.max_output_tokens ?? undefined,
        agentCap: agent.maxCompletionTokens,
      });
      void reply.headers(headers);
      if (prepared.forward)
        return body.stream === true
          ? forwardStream(request, reply, prepared, run, store)
          : forwardJson(request, reply, prepared, run, store);
      if (body.stream === true) return streamResponse(request, reply, prepared, run, store);
      return jsonResponse(request, reply, prepared, run, store);
    },
  );

  app.get(
    "/responses/:id",
    { schema: { params: ResponseIdParams, response: responses({ 200: ResponseObject }) } },
    async (request) => {
      const response = await store.get(request.auth.projectId, request.params.id);
      if (!response) throw responseNotFound(request.params.id);
      return response;
    },
  );

  app.delete(
    "/responses/:id",
    { schema: { params: ResponseIdParams, response: responses({ 200: DeletedResponse }) } },
    async (request) => {
      if (!(await store.delete(request.auth.projectId, request.params.id))) throw responseNotFound(request.params.id);
      return { id: request.params.id, object: "response" as const, deleted: true as const };
    },
  );

  app.get(
    "/responses/:id/input_items",
    { schema: { params: ResponseIdParams, querystring: InputItemsQuery, response: responses({ 200: InputItemList }) } },
    async (request) => {
      const items = await store.inputItems(request.auth.projectId, request.params.id);
      if (!items) throw responseNotFound(request.params.id);
      const { after, limit, order } = request.query;
      const ordered = order === "desc" ? [...items].reverse() : items;
      const start = after === undefined ? 0 : ordered.findIndex((item) => item.id === after) + 1;
      const data = ordered.slice(start, start + limit).map(listedItem);
      return {
        object: "list" as const,
        data,
        first_id: data[0]?.id ?? null,
        last_id: data.at(-1)?.id ?? null,
        has_more: start + limit < ordered.length,
      };
    },
  );
}
