/**
 * GET /v1/organization/costs: the member's project's spend in the shape of OpenAI's costs API
 * (domain/spend/cost-report.ts). OpenAI's parameters (`start_time`, `end_time`, `bucket_width`,
 * `project_ids`, `group_by` of `project_id`/`line_item`, `limit`, `page`), plus `api_key_id` and
 * `model` as group-by keys and `1h`/`1m` buckets. List parameters are accepted repeated or
 * comma-separated. A bad parameter is a 400 naming it.
 */
import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { invalidParam } from "../../../errors.js";
import { BUCKET_WIDTHS, cursorTime, MAX_UNIX_SECONDS, type BucketWidth } from "../../../domain/usage/usage-report.js";
import { COST_BUCKET_LIMITS, COST_GROUP_BY, costReport, type CostGroupBy } from "../../../domain/spend/cost-report.js";
import { responses } from "../../responses.js";
import { listItems } from "./usage.js";

const unixSeconds = Type.Integer({ minimum: 0, maximum: MAX_UNIX_SECONDS });
const list = Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 100 });
const CostsQuery = Type.Object({
  start_time: unixSeconds,
  end_time: Type.Optional(unixSeconds),
  bucket_width: Type.Optional(
    Type.Union(
      Object.keys(BUCKET_WIDTHS).map((w) => Type.Literal(w)),
      { default: "1d" },
    ),
  ),
  group_by: Type.Optional(list),
  project_ids: Type.Optional(list),
  limit: Type.Optional(Type.Integer({ minimum: 1 })),
  page: Type.Optional(Type.String({ maxLength: 200 })),
});
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
      const q = request.query;
      const width = (q.bucket_width ?? "1d") as BucketWidth;
      const groupBy = listItems(q.group_by, "group_by") ?? [];
      for (const g of groupBy)
        if (!(COST_GROUP_BY as readonly string[]).includes(g))
          throw invalidParam(
            "group_by",
            `Invalid value for 'group_by': '${g.slice(0, 100)}'. Costs group by ${COST_GROUP_BY.join(", ")}.`,
            "unsupported_value",
          );
      const { max } = COST_BUCKET_LIMITS[width];
      const limit = q.limit ?? COST_BUCKET_LIMITS[width].default;
      if (limit > max)
        throw invalidParam("limit", `Invalid value for 'limit': at most ${max} buckets of ${width} a page.`);
      const endTime = q.end_time ?? Math.floor(Date.now() / 1000) + 1;
      if (endTime <= q.start_time)
        throw invalidParam(
          "end_time",
          `Invalid value for 'end_time': ${endTime} is not after start_time ${q.start_time}.`,
        );
      let startTime = q.start_time;
      if (q.page !== undefined) {
        const t = cursorTime(q.page);
        if (t === undefined)
          throw invalidParam("page", "Invalid value for 'page': pass the next_page of a previous answer.");
        startTime = Math.max(startTime, t);
      }
      const projectId = request.member.projectId;
      const projects = listItems(q.project_ids, "project_ids");
      // A member sees their own project only: filtering it out leaves nothing.
      if (projects && !projects.includes(projectId))
        return { object: "page" as const, data: [], has_more: false, next_page: null };
      await app.usage.flush().catch(() => {}); // this replica's latest sums; the store answers with the rest
      return costReport(app.db, { projectId, startTime, endTime, width, limit, groupBy: groupBy as CostGroupBy[] });
    },
  );
}
