/**
 * Key management for project members (OpenAI admin API shape):
 * /v1/organization/projects/{project_id}/api_keys — GET list, POST create, GET one, DELETE one.
 * Members authenticate with a JWT; owners and admins create and delete, every member reads.
 * /v1/organization/usage/completions — the project's completions usage (usage.ts).
 */
import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { invalidParam, notFound } from "../../../errors.js";
import { assertRole, requireMember } from "../../../plugins/member-auth.js";
import { createdApiKey, projectApiKey } from "../../../domain/key-presentation.js";
import { responses } from "../../responses.js";
import type { ApiKeyRecord } from "../../../domain/api-keys.js";
import { budgetOf, refuseAboveProject, spendView } from "../../../domain/spend/budget-fields.js";
import usageRoutes from "./usage.js";
import costsRoutes from "./costs.js";
import budgetRoutes from "./budgets.js";

const ProjectParams = Type.Object({ project_id: Type.String({ minLength: 1, maxLength: 200 }) });
const KeyParams = Type.Object({ project_id: Type.String({ minLength: 1 }), key_id: Type.String({ minLength: 1 }) });
const ListQuery = Type.Object({
  after: Type.Optional(Type.String()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
});
const nullableInt = Type.Union([Type.Integer(), Type.Null()]);
/** A project API key as OpenAI's admin API shows it (never the secret). */
const ApiKey = Type.Object({
  object: Type.Literal("organization.project.api_key"),
  id: Type.String(),
  name: Type.String(),
  redacted_value: Type.String(),
  created_at: Type.Integer(),
  last_used_at: nullableInt,
  expires_at: nullableInt,
  rate_limits: Type.Object({ rpm: nullableInt, tpm: nullableInt }),
  budget: Type.Union([Type.Object({ limit_usd: Type.Number(), period: Type.String() }), Type.Null()]),
  spent_usd: Type.Number(),
  resets_at: nullableInt,
  created_by: Type.String(),
  owner_project_access: Type.Literal("active"),
  owner: Type.Object({ type: Type.Literal("user"), user: Type.Object({ id: Type.String() }) }),
});
const ApiKeyList = Type.Object({
  object: Type.Literal("list"),
  data: Type.Array(ApiKey),
  first_id: Type.Union([Type.String(), Type.Null()]),
  last_id: Type.Union([Type.String(), Type.Null()]),
  has_more: Type.Boolean(),
});
const anyObject = Type.Object({}, { additionalProperties: true });
/** The one-time view at creation: the key, its secret, the API base URL and MCP client configurations. */
const CreatedApiKey = Type.Intersect([
  ApiKey,
  Type.Object({ secret: Type.String(), base_url: Type.String(), mcp_json: anyObject, mcp_configs: anyObject }),
]);
const ApiKeyDeleted = Type.Object({
  object: Type.Literal("organization.project.api_key.deleted"),
  id: Type.String(),
  deleted: Type.Boolean(),
});

/** The largest value the `integer` columns of a key's limits can store. */
const MAX_KEY_LIMIT = 2_147_483_647;

const CreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, pattern: "\\S" }),
    /** Unix seconds, in the future: after it the key is refused like a revoked one. */
    expires_at: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 253402300799 }), Type.Null()])),
    /**
     * This key's own requests and tokens per minute, instead of the deployment's RATE_LIMIT_RPM /
     * RATE_LIMIT_TPM, which are a ceiling: a key may only go lower. The column holds up to 2^31 − 1.
     */
    rate_limits: Type.Optional(
      Type.Object(
        {
          rpm: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_KEY_LIMIT })),
          tpm: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_KEY_LIMIT })),
        },
        { additionalProperties: false },
      ),
    ),
    /**
     * This key's budget in USD per period (`30s`, `15m`, `12h`, `7d`, `1mo`, `total`), at most its
     * project's; absent: the deployment's default for new keys (BUDGET_KEY_USD), if any.
     */
    budget: Type.Optional(
      Type.Object(
        { limit_usd: Type.Number(), period: Type.String({ maxLength: 20 }) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export default async function organizationRoutes(instance: FastifyInstance) {
  // Handlers get their request types from the route schemas.
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook("onRequest", requireMember);
  const base = "/projects/:project_id/api_keys";
  /** What the key spent in its budget's period (ever, without one), from the usage rows. */
  const keySpend = (k: ApiKeyRecord) =>
    spendView(app.db, { projectId: k.projectId, keyId: k.id }, k.budget ?? undefined, k.createdAt.getTime());
  await app.register(usageRoutes);
  await app.register(costsRoutes);
  await app.register(budgetRoutes);

  app.get(
    base,
    { schema: { params: ProjectParams, querystring: ListQuery, response: responses({ 200: ApiKeyList }) } },
    async (request) => {
      const { project_id } = request.params;
      const { after, limit } = request.query;
      const page = await app.apiKeys.list(project_id, { after, limit });
      await app.usage.flush().catch(() => {});
      const data = await Promise.all(page.data.map(async (k) => projectApiKey(k, await keySpend(k))));
      return {
        object: "list" as const,
        data,
        first_id: data[0]?.id ?? null,
        last_id: data.at(-1)?.id ?? null,
        has_more: page.hasMore,
      };
    },
  );

  app.post(
    base,
    { schema: { params: ProjectParams, body: CreateBody, response: responses({ 201: CreatedApiKey }) } },
    async (request, reply) => {
      assertRole(request.member, ["owner", "admin"], "create API keys");
      const { project_id } = request.params;
      const { name, expires_at, rate_limits } = request.body;
      const defaultBudget = app.config.budgets.key;
      const budget = request.body.budget ? budgetOf(request.body.budget, "budget") : defaultBudget;
      if (budget) refuseAboveProject(budget, await app.projectBudgets.get(project_id), "budget");
      if (typeof expires_at === "number" && expires_at * 1000 <= Date.now()) {
        throw invalidParam(
          "expires_at",
          `Invalid value for 'expires_at': ${expires_at} is not in the future (Unix seconds).`,
        );
      }
      refuseAboveCeiling("rpm", rate_limits?.rpm, app.config.rateLimitRpm, "RATE_LIMIT_RPM");
      refuseAboveCeiling("tpm", rate_limits?.tpm, app.config.rateLimitTpm, "RATE_LIMIT_TPM");
      const expiresAt = typeof expires_at === "number" ? new Date(expires_at * 1000) : undefined;
      const { record, secret } = await app.apiKeys.create({
        projectId: project_id,
        name: name.trim(),
        createdBy: request.member.userId,
        expiresAt,
        rateLimitRpm: rate_limits?.rpm,
        rateLimitTpm: rate_limits?.tpm,
        budget,
      });
      request.log.info({ keyId: record.id }, "api key created");
      void reply.code(201);
      return createdApiKey(record, secret, app.config.publicUrl, app.config.modelPrefix, await keySpend(record));
    },
  );

  app.get(
    `${base}/:key_id`,
    { schema: { params: KeyParams, response: responses({ 200: ApiKey }) } },
    async (request) => {
      const { project_id, key_id } = request.params;
      const key = await app.apiKeys.get(project_id, key_id);
      if (!key) throw notFound("api key", key_id, "key_id", "api_key_not_found");
      await app.usage.flush().catch(() => {});
      return projectApiKey(key, await keySpend(key));
    },
  );

  app.delete(
    `${base}/:key_id`,
    { schema: { params: KeyParams, response: responses({ 200: ApiKeyDeleted }) } },
    async (request) => {
      assertRole(request.member, ["owner", "admin"], "delete API keys");
      const { project_id, key_id } = request.params;
      if (!(await app.apiKeys.delete(project_id, key_id)))
        throw notFound("api key", key_id, "key_id", "api_key_not_found");
      request.log.info({ keyId: key_id }, "api key revoked");
      return { object: "organization.project.api_key.deleted" as const, id: key_id, deleted: true };
    },
  );
}

/** The deployment's limit is a ceiling: a project may give a key a lower limit, never a higher one. */
function refuseAboveCeiling(
  field: "rpm" | "tpm",
  value: number | undefined,
  ceiling: number | undefined,
  setting: string,
): void {
  if (value === undefined || ceiling === undefined || value <= ceiling) return;
  throw invalidParam(
    `rate_limits.${field}`,
    `Invalid value for 'rate_limits.${field}': ${value} is above this deployment's limit of ${ceiling} (${setting}); a key's own limit may only be lower.`,
  );
}
