/**
 * GET /v1/organization/usage/completions: the member's project's completions usage in the shape of
 * OpenAI's usage API. Every member of the project reads it. The query is report-query.ts's, plus
 * `api_key_ids` and `models` filters.
 * Usage is written by each replica every few seconds; the answering replica writes its own first.
 */
import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { BUCKET_LIMITS, GROUP_BY, usageReport } from "../../../domain/usage/usage-report.js";
import { responses } from "../../responses.js";
import { emptyPage, listItems, listParam, parseReportQuery, reportQuery } from "./report-query.js";

const UsageQuery = reportQuery({ api_key_ids: Type.Optional(listParam), models: Type.Optional(listParam) });
const GROUP_BY_HINT = `This server groups by ${GROUP_BY.join(", ")} (it records usage per API key, not per user, and runs no batches).`;
const nullableString = Type.Union([Type.String(), Type.Null()]);
const UsagePage = Type.Object({
  object: Type.Literal("page"),
  data: Type.Array(
    Type.Object({
      object: Type.Literal("bucket"),
      start_time: Type.Integer(),
      end_time: Type.Integer(),
      results: Type.Array(
        Type.Object({
          object: Type.Literal("organization.usage.completions.result"),
          input_tokens: Type.Integer(),
          output_tokens: Type.Integer(),
          input_cached_tokens: Type.Integer(),
          input_audio_tokens: Type.Integer(),
          output_audio_tokens: Type.Integer(),
          num_model_requests: Type.Integer(),
          project_id: nullableString,
          user_id: Type.Null(),
          api_key_id: nullableString,
          model: nullableString,
          batch: Type.Null(),
        }),
      ),
    }),
  ),
  has_more: Type.Boolean(),
  next_page: nullableString,
});

export default async function usageRoutes(instance: FastifyInstance) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    "/usage/completions",
    { schema: { querystring: UsageQuery, response: responses({ 200: UsagePage }) } },
    async (request) => {
      const q = request.query;
      const projectId = request.member.projectId;
      const rules = { groupBy: GROUP_BY, groupByHint: GROUP_BY_HINT, limits: BUCKET_LIMITS };
      const { othersOnly, ...p } = parseReportQuery(q, rules, projectId);
      if (othersOnly) return emptyPage();
      await app.usage.flush().catch(() => {}); // this replica's latest sums; the store answers with the rest
      const apiKeyIds = listItems(q.api_key_ids, "api_key_ids");
      return usageReport(app.db, { projectId, ...p, apiKeyIds, models: listItems(q.models, "models") });
    },
  );
}
