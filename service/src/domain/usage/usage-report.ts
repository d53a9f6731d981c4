/**
 * Completions usage read back in the shape of OpenAI's usage API
 * (`GET /v1/organization/usage/completions`): time buckets snapped to the UTC minute, hour or day,
 * each with one result per group (`project_id`, `api_key_id`, `model`), empty buckets included; `limit` buckets a
 * page, the next page's cursor is the next bucket's start.
 */
import type { Queryable } from "../../store/db.js";

export const BUCKET_WIDTHS = { "1m": 60, "1h": 3_600, "1d": 86_400 } as const;
export type BucketWidth = keyof typeof BUCKET_WIDTHS;
/** Buckets a page by default and at most, per width (OpenAI's). */
export const BUCKET_LIMITS: Record<BucketWidth, { default: number; max: number }> = {
  "1m": { default: 60, max: 1_440 },
  "1h": { default: 24, max: 168 },
  "1d": { default: 7, max: 31 },
};
export const GROUP_BY = ["project_id", "api_key_id", "model"] as const;
export type GroupBy = (typeof GROUP_BY)[number];

export interface UsageQuery {
  projectId: string;
  /** Unix seconds: the first bucket is the one holding it. */
  startTime: number;
  /** Unix seconds, exclusive. */
  endTime: number;
  width: BucketWidth;
  limit: number;
  groupBy: readonly GroupBy[];
  apiKeyIds?: readonly string[];
  models?: readonly string[];
}

export interface UsageResult {
  object: "organization.usage.completions.result";
  input_tokens: number;
  output_tokens: number;
  input_cached_tokens: number;
  input_audio_tokens: number;
  output_audio_tokens: number;
  num_model_requests: number;
  project_id: string | null;
  user_id: null;
  api_key_id: string | null;
  model: string | null;
  batch: null;
}

export interface UsagePage {
  object: "page";
  data: { object: "bucket"; start_time: number; end_time: number; results: UsageResult[] }[];
  has_more: boolean;
  next_page: string | null;
}

/** The cursor is opaque to clients: the next bucket's start, as OpenAI's is an encoded time. */
/** The last second a date can hold in ISO form (9999-12-31T23:59:59Z): a cursor past it is not one of ours. */
export const MAX_UNIX_SECONDS = 253402300799;

export const pageCursor = (startTime: number) => `page_${Buffer.from(String(startTime)).toString("base64url")}`;
export function cursorTime(page: string): number | undefined {
  const m = /^page_([A-Za-z0-9_-]+)$/.exec(page);
  const t = m ? Number(Buffer.from(m[1], "base64url").toString()) : NaN;
  return Number.isSafeInteger(t) && t >= 0 && t <= MAX_UNIX_SECONDS ? t : undefined;
}

interface Row {
  bucket: Date | string;
  project_id: string | null;
  api_key_id: string | null;
  model: string | null;
  requests: string | number;
  input_tokens: string | number;
  output_tokens: string | number;
}

/**
 * The roll-ups from the coarsest, each with its time column and width in seconds: per key and model
 * (migration 010), and per model only (migration 014), which a report not naming keys reads, so its
 * rows do not grow with the keys. usage_model_minutes holds the minutes from its start on only.
 */
const TIERS = [
  { table: "usage_days", byModel: "usage_model_days", column: "day", seconds: 86_400 },
  { table: "usage_hours", byModel: "usage_model_hours", column: "hour", seconds: 3_600 },
  { table: "usage_minutes", byModel: "usage_model_minutes", column: "minute", seconds: 60 },
] as const;
const MODEL_MINUTES_START = "(SELECT minute FROM usage_model_minutes_start)";

/**
 * Where the rows of [first, until) are read: whole days from the daily sums, then whole hours
 * from the hourly ones, then the minutes left. A bucket never splits a coarser row, since `first`
 * is aligned to the bucket width and only tiers no wider than it are used; the last tier takes
 * every minute that starts before `until`, as the minute rows alone did. `perKey`: the tables with
 * `api_key_id`, for a report grouped or filtered by key; otherwise the per-model ones, and the minute
 * rows for the minutes before usage_model_minutes starts (`bound`: the SQL condition splitting them).
 */
export function sources(first: number, until: number, width: number, perKey: boolean) {
  const tiers = TIERS.filter((t) => t.seconds <= width);
  const out: { table: string; column: string; from: number; to: number; bound: string }[] = [];
  let from = first;
  tiers.forEach((tier, i) => {
    const last = i === tiers.length - 1;
    const to = last ? until : Math.max(from, until - (until % tier.seconds));
    if (to <= from) return;
    if (perKey) out.push({ table: tier.table, column: tier.column, from, to, bound: "" });
    else if (tier.column !== "minute") out.push({ table: tier.byModel, column: tier.column, from, to, bound: "" });
    else {
      out.push({ table: tier.byModel, column: "minute", from, to, bound: `AND minute >= ${MODEL_MINUTES_START}` });
      out.push({ table: tier.table, column: "minute", from, to, bound: `AND minute < ${MODEL_MINUTES_START}` });
    }
    from = to;
  });
  return out;
}

export async function usageReport(db: Queryable, q: UsageQuery): Promise<UsagePage> {
  const width = BUCKET_WIDTHS[q.width];
  const first = q.startTime - (q.startTime % width);
  const all = Math.max(0, Math.ceil((q.endTime - first) / width));
  const count = Math.min(all, q.limit);
  const until = Math.min(q.endTime, first + count * width);

  const params: unknown[] = [q.projectId, `${width} seconds`];
  const filters: string[] = [];
  if (q.apiKeyIds?.length) filters.push(`AND api_key_id = ANY($${params.push(q.apiKeyIds)}::text[])`);
  if (q.models?.length) filters.push(`AND model = ANY($${params.push(q.models)}::text[])`);
  const perKey = q.groupBy.includes("api_key_id") || !!q.apiKeyIds?.length;
  const key = perKey ? "api_key_id, " : "";
  const parts = sources(first, until, width, perKey).map(({ table, column, from, to, bound }) => {
    const range = `$${params.push(new Date(from * 1000).toISOString())}::timestamptz`;
    const end = `$${params.push(new Date(to * 1000).toISOString())}::timestamptz`;
    return `SELECT ${column} AS t, project_id, ${key}model, requests, input_tokens, output_tokens FROM ${table}
             WHERE project_id = $1 AND ${column} >= ${range} AND ${column} < ${end} ${bound} ${filters.join(" ")}`;
  });
  const groups = q.groupBy.map((g) => `, ${g}`).join("");
  const nulls = GROUP_BY.filter((g) => !q.groupBy.includes(g))
    .map((g) => `, NULL::text AS ${g}`)
    .join("");
  const { rows } = parts.length
    ? await db.query<Row>(
        `SELECT date_bin($2::interval, t, TIMESTAMPTZ 'epoch') AS bucket${groups}${nulls},
                sum(requests) AS requests, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens
           FROM (${parts.join(" UNION ALL ")}) AS u
          GROUP BY 1${groups} ORDER BY 1${groups}`,
        params,
      )
    : { rows: [] as Row[] };

  const buckets: UsagePage["data"] = [];
  const byStart = new Map<number, UsageResult[]>();
  for (let i = 0; i < count; i++) {
    const start = first + i * width;
    const results: UsageResult[] = [];
    byStart.set(start, results);
    buckets.push({ object: "bucket", start_time: start, end_time: start + width, results });
  }
  for (const r of rows) {
    byStart.get(Math.floor(new Date(r.bucket).getTime() / 1000))?.push({
      object: "organization.usage.completions.result",
      input_tokens: Number(r.input_tokens),
      output_tokens: Number(r.output_tokens),
      input_cached_tokens: 0,
      input_audio_tokens: 0,
      output_audio_tokens: 0,
      num_model_requests: Number(r.requests),
      project_id: r.project_id,
      user_id: null,
      api_key_id: r.api_key_id,
      model: r.model,
      batch: null,
    });
  }
  const hasMore = count < all;
  return {
    object: "page",
    data: buckets,
    has_more: hasMore,
    next_page: hasMore ? pageCursor(first + count * width) : null,
  };
}
