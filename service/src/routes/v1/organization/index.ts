/**
 * Key management for project members (OpenAI admin API shape):
 * /v1/organization/projects/{project_id}/api_keys — GET list, POST create, GET one, DELETE one.
 * Members authenticate with a JWT; owners and admins create and delete, every member reads.
 */
import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { notFound } from "../../../errors.js";
import { assertRole, requireMember } from "../../../plugins/member-auth.js";
import { createdApiKey, projectApiKey } from "../../../domain/key-presentation.js";

const ProjectParams = Type.Object({ project_id: Type.String({ minLength: 1, maxLength: 200 }) });
const KeyParams = Type.Object({ project_id: Type.String({ minLength: 1 }), key_id: Type.String({ minLength: 1 }) });
const ListQuery = Type.Object({
  after: Type.Optional(Type.String()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
});
const CreateBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200, pattern: "\\S" }) },
  { additionalProperties: false },
);

export default async function organizationRoutes(instance: FastifyInstance) {
  // Handlers get their request types from the route schemas.
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook("onRequest", requireMember);
  const base = "/projects/:project_id/api_keys";

  app.get(base, { schema: { params: ProjectParams, querystring: ListQuery } }, async (request) => {
    const { project_id } = request.params;
    const { after, limit } = request.query;
    const page = await app.apiKeys.list(project_id, { after, limit });
    const data = page.data.map(projectApiKey);
    return { object: "list", data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: page.hasMore };
  });

  app.post(base, { schema: { params: ProjectParams, body: CreateBody } }, async (request, reply) => {
    assertRole(request.member, ["owner", "admin"], "create API keys");
    const { project_id } = request.params;
    const { name } = request.body;
    const { record, secret } = await app.apiKeys.create({ projectId: project_id, name: name.trim(), createdBy: request.member.userId });
    request.log.info({ keyId: record.id }, "api key created");
    void reply.code(201);
    return createdApiKey(record, secret, app.config.publicUrl, app.config.modelPrefix);
  });

  app.get(`${base}/:key_id`, { schema: { params: KeyParams } }, async (request) => {
    const { project_id, key_id } = request.params;
    const key = await app.apiKeys.get(project_id, key_id);
    if (!key) throw notFound("api key", key_id, "key_id", "api_key_not_found");
    return projectApiKey(key);
  });

  app.delete(`${base}/:key_id`, { schema: { params: KeyParams } }, async (request) => {
    assertRole(request.member, ["owner", "admin"], "delete API keys");
    const { project_id, key_id } = request.params;
    if (!(await app.apiKeys.delete(project_id, key_id))) throw notFound("api key", key_id, "key_id", "api_key_not_found");
    request.log.info({ keyId: key_id }, "api key revoked");
    return { object: "organization.project.api_key.deleted", id: key_id, deleted: true };
  });
}
