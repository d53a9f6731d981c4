/**
 * GET /v1/organization/costs: the member's project's spend in the shape of OpenAI's costs API
 * (domain/spend/cost-report.ts). OpenAI's parameters (`start_time`, `end_time`, `bucket_width`,
 * `project_ids`, `group_by` of `project_id`/`line_item`, `limit`, `page`), plus `api_key_id` and
 * `model` as group-by keys and `1h`/`1m` buckets. The query is report-query.ts's: a bad parameter is
 * a 400 naming it.
 */
import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { COST_BUCKET_LIMITS, COST_GROUP_BY, costReport } from "../../../domain/spend/cost-report.js";
import { responses } from "../../responses.js";
import { emptyPage, parseReportQuery, reportQuery } from "./report-query.js";

const CostsQuery = reportQuery({});
const GROUP_BY_HINT = `Costs group by ${COST_GROUP_BY.join(", ")}.`;
const nullableString = Type.Union([Type.String(), Type.Null()]);
const CostsPage = Type.Object({
  object: Type.Literal("page"),
  data: Type.Array(
    Type.Object({
      object: Type.Literal("bucket"),
      start_time: Type.Integer(),
      end_time: Type.Integer(),
      results: Type.Array(
        Type.Object({
          object: Type.Literal("organization.costs.result"),
          amount: Type.Object({ value: Type.Number(), currency: Type.Literal("usd") }),
          line_item: nullableString,
          project_id: nullableString,
          api_key_id: nullableString,
          model: nullableString,
        }),
      ),
    }),
  ),
  has_more: Type.Boolean(),
  next_page: nullableString,
});

export default async function costsRoutes(instance: FastifyInstance) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    "/costs",
    { schema: { querystring: CostsQuery, response: responses({ 200: CostsPage }) } },
    async (request) => {
      const projectId = request.member.projectId;
      const rules = { groupBy: COST_GROUP_BY, groupByHint: GROUP_BY_HINT, limits: COST_BUCKET_LIMITS };
      const { othersOnly, ...p } = parseReportQuery(request.query, rules, projectId);
      if (othersOnly) return emptyPage();
      await app.usage.flush().catch(() => {}); // this replica's latest sums; the store answers with the rest
      return costReport(app.db, { projectId, ...p });
    },
  );
}
