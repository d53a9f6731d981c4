/**
 * GET /v1/organization/usage/completions: the member's project's completions usage in the shape of
 * OpenAI's usage API. Every member of the project reads it. List parameters are accepted repeated
 * (`group_by=model&group_by=api_key_id`) or comma-separated (`group_by=api_key_id,model`).
 * Usage is written by each replica every few seconds; the answering replica writes its own first.
 */
import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { invalidParam } from "../../../errors.js";
import {
  BUCKET_LIMITS,
  BUCKET_WIDTHS,
  GROUP_BY,
  cursorTime,
  MAX_UNIX_SECONDS,
  usageReport,
  type BucketWidth,
  type GroupBy,
} from "../../../domain/usage/usage-report.js";
import { responses } from "../../responses.js";

const unixSeconds = Type.Integer({ minimum: 0, maximum: MAX_UNIX_SECONDS });
const list = Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 100 });
const UsageQuery = Type.Object({
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
  api_key_ids: Type.Optional(list),
  models: Type.Optional(list),
  limit: Type.Optional(Type.Integer({ minimum: 1 })),
  page: Type.Optional(Type.String({ maxLength: 200 })),
});
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

/** Distinct items a list parameter may name once split at commas (each filters or groups the query). */
const MAX_LIST_ITEMS = 1000;

/** `["a,b", "c", "a"]` → `["a", "b", "c"]`; too many items is the client's 400, naming the parameter. */
export function listItems(values: string[] | undefined, param: string): string[] | undefined {
  if (!values) return undefined;
  const all = values
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter(Boolean);
  if (all.length > MAX_LIST_ITEMS)
    throw invalidParam(param, `Invalid value for '${param}': at most ${MAX_LIST_ITEMS} items, ${all.length} given.`);
  return [...new Set(all)];
}

export default async function usageRoutes(instance: FastifyInstance) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    "/usage/completions",
    { schema: { querystring: UsageQuery, response: responses({ 200: UsagePage }) } },
    async (request) => {
      const q = request.query;
      const width = (q.bucket_width ?? "1d") as BucketWidth;
      const groupBy = listItems(q.group_by, "group_by") ?? [];
      for (const g of groupBy) {
        if (!(GROUP_BY as readonly string[]).includes(g)) {
          throw invalidParam(
            "group_by",
            `Invalid value for 'group_by': '${g.slice(0, 100)}'. This server groups by ${GROUP_BY.join(", ")} (it records usage per API key, not per user, and runs no batches).`,
            "unsupported_value",
          );
        }
      }
      const { max } = BUCKET_LIMITS[width];
      const limit = q.limit ?? BUCKET_LIMITS[width].default;
      if (limit > max)
        throw invalidParam("limit", `Invalid value for 'limit': at most ${max} buckets of ${width} a page.`);
      const now = Math.floor(Date.now() / 1000);
      // By default up to now: the bucket holding this second is the last.
      const endTime = q.end_time ?? now + 1;
      let startTime = q.start_time;
      if (q.page !== undefined) {
        const t = cursorTime(q.page);
        if (t === undefined)
          throw invalidParam("page", "Invalid value for 'page': pass the next_page of a previous answer.");
        startTime = Math.max(startTime, t);
      }
      if (endTime <= q.start_time)
        throw invalidParam(
          "end_time",
          `Invalid value for 'end_time': ${endTime} is not after start_time ${q.start_time}.`,
        );
      const projectId = request.member.projectId;
      const projects = listItems(q.project_ids, "project_ids");
      // A member sees their own project only: filtering it out leaves nothing.
      if (projects && !projects.includes(projectId))
        return { object: "page" as const, data: [], has_more: false, next_page: null };
      await app.usage.flush().catch(() => {}); // this replica's latest sums; the store answers with the rest
      return usageReport(app.db, {
        projectId,
        startTime,
        endTime,
        width,
        limit,
        groupBy: groupBy as GroupBy[],
        apiKeyIds: listItems(q.api_key_ids, "api_key_ids"),
        models: listItems(q.models, "models"),
      });
    },
  );
}
