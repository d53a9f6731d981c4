/**
 * Spend read back in the shape of OpenAI's costs API (`GET /v1/organization/costs`): time buckets
 * snapped to the UTC minute, hour or day, each with one `organization.costs.result` per group
 * (`project_id`, `line_item` — `<model>, input` and `<model>, output` as OpenAI names them — and
 * this server's `api_key_id` and `model`), amounts in USD from the usage rows' integer
 * micro-dollars, read as the usage API reads tokens: whole days and hours from the roll-ups
 * (migrations 010 and 013; per model only, 014, unless grouped by key), only the minutes left from
 * the minute rows. Paged like the usage API (usage-report.ts): `limit` buckets a page, the next
 * page's cursor the next bucket's start.
 */
import type { Queryable } from "../../store/db.js";
import { BUCKET_WIDTHS, pageCursor, sources, type BucketWidth } from "../usage/usage-report.js";
import { usd } from "./cost.js";

/** Buckets a page by default and at most, per width (OpenAI's for 1d: 7 and 180). */
export const COST_BUCKET_LIMITS: Record<BucketWidth, { default: number; max: number }> = {
  "1m": { default: 60, max: 1_440 },
  "1h": { default: 24, max: 168 },
  "1d": { default: 7, max: 180 },
};
export const COST_GROUP_BY = ["project_id", "line_item", "api_key_id", "model"] as const;
export type CostGroupBy = (typeof COST_GROUP_BY)[number];

export interface CostQuery {
  projectId: string;
  /** Unix seconds: the first bucket is the one holding it. */
  startTime: number;
  /** Unix seconds, exclusive. */
  endTime: number;
  width: BucketWidth;
  limit: number;
  groupBy: readonly CostGroupBy[];
}

export interface CostResult {
  object: "organization.costs.result";
  amount: { value: number; currency: "usd" };
  line_item: string | null;
  project_id: string | null;
  api_key_id: string | null;
  model: string | null;
}

export interface CostPage {
  object: "page";
  data: { object: "bucket"; start_time: number; end_time: number; results: CostResult[] }[];
  has_more: boolean;
  next_page: string | null;
}

interface Row {
  bucket: Date | string;
  project_id: string | null;
  api_key_id: string | null;
  model: string | null;
  input: string | number;
  output: string | number;
}

/** The SQL columns a grouping needs: line items are per model. */
function columns(groupBy: readonly CostGroupBy[]): string[] {
  const cols = new Set<string>();
  for (const g of groupBy) cols.add(g === "line_item" ? "model" : g);
  return ["project_id", "api_key_id", "model"].filter((c) => cols.has(c));
}

/** A row's results: one, or with line items its input and its output; amounts of 0 are left out. */
function resultsOf(r: Row, groupBy: readonly CostGroupBy[]): CostResult[] {
  const base = {
    object: "organization.costs.result" as const,
    project_id: groupBy.includes("project_id") ? r.project_id : null,
    api_key_id: groupBy.includes("api_key_id") ? r.api_key_id : null,
    model: groupBy.includes("model") ? r.model : null,
  };
  const amount = (micros: number) => ({ value: usd(micros), currency: "usd" as const });
  const input = Number(r.input);
  const output = Number(r.output);
  if (!groupBy.includes("line_item"))
    return input + output > 0 ? [{ ...base, amount: amount(input + output), line_item: null }] : [];
  const lines: CostResult[] = [];
  if (input > 0) lines.push({ ...base, amount: amount(input), line_item: `${r.model}, input` });
  if (output > 0) lines.push({ ...base, amount: amount(output), line_item: `${r.model}, output` });
  return lines;
}

export async function costReport(db: Queryable, q: CostQuery): Promise<CostPage> {
  const width = BUCKET_WIDTHS[q.width];
  const first = q.startTime - (q.startTime % width);
  const all = Math.max(0, Math.ceil((q.endTime - first) / width));
  const count = Math.min(all, q.limit);
  const until = Math.min(q.endTime, first + count * width);
  const cols = columns(q.groupBy);
  const groups = cols.map((c) => `, ${c}`).join("");
  const nulls = ["project_id", "api_key_id", "model"]
    .filter((c) => !cols.includes(c))
    .map((c) => `, NULL::text AS ${c}`)
    .join("");
  const params: unknown[] = [q.projectId, `${width} seconds`];
  const perKey = cols.includes("api_key_id");
  const key = perKey ? "api_key_id, " : "";
  const parts = sources(first, until, width, perKey).map(({ table, column, from, to, bound }) => {
    const range = `$${params.push(new Date(from * 1000).toISOString())}::timestamptz`;
    const end = `$${params.push(new Date(to * 1000).toISOString())}::timestamptz`;
    return `SELECT ${column} AS t, project_id, ${key}model, input_cost_micro_usd, output_cost_micro_usd FROM ${table}
             WHERE project_id = $1 AND ${column} >= ${range} AND ${column} < ${end} ${bound}`;
  });
  const { rows } = parts.length
    ? await db.query<Row>(
        `SELECT date_bin($2::interval, t, TIMESTAMPTZ 'epoch') AS bucket${groups}${nulls},
                sum(input_cost_micro_usd) AS input, sum(output_cost_micro_usd) AS output
           FROM (${parts.join(" UNION ALL ")}) AS u
          GROUP BY 1${groups} ORDER BY 1${groups}`,
        params,
      )
    : { rows: [] as Row[] };
  const data: CostPage["data"] = [];
  const byStart = new Map<number, CostResult[]>();
  for (let i = 0; i < count; i++) {
    const start = first + i * width;
    const results: CostResult[] = [];
    byStart.set(start, results);
    data.push({ object: "bucket", start_time: start, end_time: start + width, results });
  }
  for (const r of rows) byStart.get(Math.floor(new Date(r.bucket).getTime() / 1000))?.push(...resultsOf(r, q.groupBy));
  const hasMore = count < all;
  return { object: "page", data, has_more: hasMore, next_page: hasMore ? pageCursor(first + count * width) : null };
}
