/** GET /v1/models and GET /v1/models/{id}: the project's agents as OpenAI Model objects. */
import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import type { AgentInfo } from "../../../domain/agents/types.js";
import { modelNotFound } from "../../../errors.js";
import { responses } from "../../responses.js";

/** The rest of the path after /models/ (the router's wildcard). */
const WildcardParams = Type.Object({ "*": Type.String() });

const Model = Type.Object({
  id: Type.String(),
  object: Type.Literal("model"),
  created: Type.Integer(),
  owned_by: Type.String(),
});

export default async function modelsRoutes(instance: FastifyInstance) {
  // Handlers get their request types from the route schemas.
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const toModel = (agent: AgentInfo, id = agent.modelId) => ({
    id,
    object: "model" as const,
    created: agent.created,
    owned_by: app.config.modelPrefix,
  });
  /** An agent under its model id, then under each of its aliases. */
  const modelsOf = (agent: AgentInfo) => [
    toModel(agent),
    ...(agent.aliases ?? []).map((alias) => toModel(agent, alias)),
  ];

  app.get(
    "/models",
    {
      schema: { response: responses({ 200: Type.Object({ object: Type.Literal("list"), data: Type.Array(Model) }) }) },
    },
    async (request) => ({ object: "list" as const, data: app.agents.list(request.auth.projectId).flatMap(modelsOf) }),
  );

  // Model ids hold a slash and a colon (`agentport/chat:latest`), sent raw or percent-encoded.
  app.get("/models/*", { schema: { params: WildcardParams, response: responses({ 200: Model }) } }, async (request) => {
    const raw = request.params["*"];
    let id = raw;
    try {
      id = decodeURIComponent(raw);
    } catch {
      // Not percent-encoded after all: look it up as sent.
    }
    const agent = app.agents.resolve(request.auth.projectId, id);
    if (!agent) throw modelNotFound(id);
    return toModel(agent, id); // an alias is shown as asked for
  });
}
