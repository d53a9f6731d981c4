/**
 * The query the organization reports share (usage.ts, costs.ts), as OpenAI's usage and costs APIs
 * take it: `start_time`, `end_time`, `bucket_width`, `group_by`, `project_ids`, `limit`, `page`.
 * Its schema, and the checks a schema cannot make, each refusal a 400 naming its parameter. List
 * parameters are accepted repeated (`group_by=model&group_by=api_key_id`) or comma-separated.
 */
import { Type, type TProperties } from "typebox";
import { invalidParam } from "../../../errors.js";
import { BUCKET_WIDTHS, cursorTime, MAX_UNIX_SECONDS, type BucketWidth } from "../../../domain/usage/usage-report.js";

const unixSeconds = Type.Integer({ minimum: 0, maximum: MAX_UNIX_SECONDS });
/** A list parameter as the schema bounds it (listItems splits and bounds its items). */
export const listParam = Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 100 });

/**
 * A report's query schema: the shared parameters, with the report's own filters after
 * `project_ids` (the order the schema checks them in, so the first bad one is named).
 */
export const reportQuery = <F extends TProperties>(filters: F) =>
  Type.Object({
    start_time: unixSeconds,
    end_time: Type.Optional(unixSeconds),
    bucket_width: Type.Optional(
      Type.Union(
        Object.keys(BUCKET_WIDTHS).map((w) => Type.Literal(w)),
        { default: "1d" },
      ),
    ),
    group_by: Type.Optional(listParam),
    project_ids: Type.Optional(listParam),
    ...filters,
    limit: Type.Optional(Type.Integer({ minimum: 1 })),
    page: Type.Optional(Type.String({ maxLength: 200 })),
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

/** The shared parameters as the schema passed them. */
export interface ReportQueryInput {
  start_time: number;
  end_time?: number;
  bucket_width?: string;
  group_by?: string[];
  project_ids?: string[];
  limit?: number;
  page?: string;
}

/** What differs between the reports. */
export interface ReportRules<G extends string> {
  /** The keys `group_by` may name. */
  groupBy: readonly G[];
  /** Said after a refused `group_by` value: what this report groups by. */
  groupByHint: string;
  /** Buckets a page by default and at most, per width. */
  limits: Record<BucketWidth, { default: number; max: number }>;
}

export interface ReportParams<G extends string> {
  width: BucketWidth;
  groupBy: G[];
  limit: number;
  /** Unix seconds: `start_time`, or the `page` cursor's time when later. */
  startTime: number;
  /** Unix seconds, exclusive: `end_time`, by default up to now (the bucket holding this second is the last). */
  endTime: number;
  /** `project_ids` names other projects only: a member sees their own project only, so the page is empty. */
  othersOnly: boolean;
}

/** The query checked in one order for every report: group_by, limit, page, end_time, project_ids. */
export function parseReportQuery<G extends string>(
  q: ReportQueryInput,
  rules: ReportRules<G>,
  projectId: string,
  nowMs = Date.now(),
): ReportParams<G> {
  const width = (q.bucket_width ?? "1d") as BucketWidth;
  const groupBy = listItems(q.group_by, "group_by") ?? [];
  for (const g of groupBy)
    if (!(rules.groupBy as readonly string[]).includes(g))
      throw invalidParam(
        "group_by",
        `Invalid value for 'group_by': '${g.slice(0, 100)}'. ${rules.groupByHint}`,
        "unsupported_value",
      );
  const { max } = rules.limits[width];
  const limit = q.limit ?? rules.limits[width].default;
  if (limit > max) throw invalidParam("limit", `Invalid value for 'limit': at most ${max} buckets of ${width} a page.`);
  let startTime = q.start_time;
  if (q.page !== undefined) {
    const t = cursorTime(q.page);
    if (t === undefined)
      throw invalidParam("page", "Invalid value for 'page': pass the next_page of a previous answer.");
    startTime = Math.max(startTime, t);
  }
  const endTime = q.end_time ?? Math.floor(nowMs / 1000) + 1;
  if (endTime <= q.start_time)
    throw invalidParam("end_time", `Invalid value for 'end_time': ${endTime} is not after start_time ${q.start_time}.`);
  const projects = listItems(q.project_ids, "project_ids");
  const othersOnly = projects !== undefined && !projects.includes(projectId);
  return { width, groupBy: groupBy as G[], limit, startTime, endTime, othersOnly };
}

/** The answer when `project_ids` leaves out the member's project. */
export const emptyPage = () => ({ object: "page" as const, data: [], has_more: false, next_page: null });
