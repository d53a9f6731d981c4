/** The usage and costs reports' shared query: defaults, each refusal naming its parameter, one order of checks. */
import { describe, expect, it } from "vitest";
import { Type } from "typebox";
import {
  emptyPage,
  listItems,
  listParam,
  parseReportQuery,
  reportQuery,
  type ReportQueryInput,
} from "../../../../../../../service/src/routes/v1/organization/report-query.js";
import { MAX_UNIX_SECONDS, pageCursor } from "../../../../../../../service/src/domain/usage/usage-report.js";
import { validatorCompiler } from "../../../../../../../service/src/validation.js";

const RULES = {
  groupBy: ["model", "api_key_id"] as const,
  groupByHint: "Groups by model, api_key_id.",
  limits: { "1m": { default: 60, max: 1440 }, "1h": { default: 24, max: 168 }, "1d": { default: 7, max: 31 } },
};
const NOW = 1_772_000_000_500;
const START = 1_771_000_000;
const parse = (q: Partial<ReportQueryInput>) => parseReportQuery({ start_time: START, ...q }, RULES, "own", NOW);
/** The refusal `fn` throws, as the error envelope shows it. */
function refusal(fn: () => unknown) {
  try {
    fn();
  } catch (e) {
    const err = e as { statusCode: number; param: string; code: string; message: string };
    return { status: err.statusCode, param: err.param, code: err.code, message: err.message };
  }
  throw new Error("not refused");
}

describe("reportQuery", () => {
  const schema = reportQuery({ models: Type.Optional(listParam) });
  const validate = validatorCompiler()({ schema, httpPart: "querystring", method: "GET", url: "/" }) as unknown as {
    (data: object): boolean;
    errors?: Array<{ instancePath: string }>;
  };
  /** The query as the app's query-string validator leaves it, or the parameter it refuses. */
  const check = (q: Record<string, unknown>) => {
    const data = { ...q };
    return validate(data) ? data : { refused: validate.errors?.[0]?.instancePath };
  };
  const t = "1771000000";

  it("coerces the numbers, defaults bucket_width to 1d, and puts a report's filters after project_ids", () => {
    expect(check({ start_time: t, end_time: t, limit: "3", page: "p".repeat(200), models: "m" })).toEqual({
      start_time: 1_771_000_000,
      end_time: 1_771_000_000,
      bucket_width: "1d",
      limit: 3,
      page: "p".repeat(200),
      models: ["m"],
    });
    expect(Object.keys(schema.properties)).toEqual([
      "start_time",
      "end_time",
      "bucket_width",
      "group_by",
      "project_ids",
      "models",
      "limit",
      "page",
    ]);
    expect(check({ start_time: String(MAX_UNIX_SECONDS), bucket_width: "1m" })).toMatchObject({ bucket_width: "1m" });
  });

  it("refuses times outside 0 to the last ISO second, unknown widths, limits below 1, long pages and lists", () => {
    const long = Array(101).fill("m");
    const cases: Array<[Record<string, unknown>, string | undefined]> = [
      [{}, ""],
      [{ start_time: "-1" }, "/start_time"],
      [{ start_time: String(MAX_UNIX_SECONDS + 1) }, "/start_time"],
      [{ start_time: t, end_time: "-1" }, "/end_time"],
      [{ start_time: t, bucket_width: "2h" }, "/bucket_width"],
      [{ start_time: t, limit: "0" }, "/limit"],
      [{ start_time: t, page: "p".repeat(201) }, "/page"],
      [{ start_time: t, group_by: long }, "/group_by"],
      [{ start_time: t, project_ids: ["p".repeat(2001)] }, "/project_ids/0"],
      [{ start_time: t, models: long }, "/models"],
    ];
    for (const [q, param] of cases) expect({ q, ...check(q) }).toEqual({ q, refused: param });
  });
});

describe("parseReportQuery", () => {
  it("defaults to daily buckets, the width's default limit, up to the current second, no groups", () => {
    expect(parse({})).toEqual({
      width: "1d",
      groupBy: [],
      limit: 7,
      startTime: START,
      endTime: 1_772_000_001,
      othersOnly: false,
    });
    expect(parse({ bucket_width: "1h", end_time: START + 1, limit: 168 })).toMatchObject({
      width: "1h",
      limit: 168,
      endTime: START + 1,
    });
  });

  it("splits group_by at commas, once each, and refuses a key the report lacks with its hint", () => {
    expect(parse({ group_by: ["model,api_key_id", " model "] }).groupBy).toEqual(["model", "api_key_id"]);
    expect(refusal(() => parse({ group_by: ["model", "user_id"] }))).toEqual({
      status: 400,
      param: "group_by",
      code: "unsupported_value",
      message: "Invalid value for 'group_by': 'user_id'. Groups by model, api_key_id.",
    });
    expect(refusal(() => parse({ group_by: ["x".repeat(150)] })).message).toBe(
      `Invalid value for 'group_by': '${"x".repeat(100)}'. Groups by model, api_key_id.`,
    );
  });

  it("refuses a limit above the width's most", () => {
    expect(refusal(() => parse({ bucket_width: "1h", limit: 169 }))).toEqual({
      status: 400,
      param: "limit",
      code: "invalid_value",
      message: "Invalid value for 'limit': at most 168 buckets of 1h a page.",
    });
  });

  it("starts at a page cursor later than start_time, never earlier, and refuses one not of ours", () => {
    expect(parse({ page: pageCursor(START + 86_400) }).startTime).toBe(START + 86_400);
    expect(parse({ page: pageCursor(START - 86_400) }).startTime).toBe(START);
    expect(refusal(() => parse({ page: "garbage" }))).toEqual({
      status: 400,
      param: "page",
      code: "invalid_value",
      message: "Invalid value for 'page': pass the next_page of a previous answer.",
    });
  });

  it("refuses an end_time not after start_time, its default included", () => {
    expect(refusal(() => parse({ end_time: START }))).toEqual({
      status: 400,
      param: "end_time",
      code: "invalid_value",
      message: `Invalid value for 'end_time': ${START} is not after start_time ${START}.`,
    });
    const future = Math.floor(NOW / 1000) + 1;
    expect(refusal(() => parse({ start_time: future })).message).toBe(
      `Invalid value for 'end_time': ${future} is not after start_time ${future}.`,
    );
  });

  it("checks group_by, limit, page, end_time, project_ids in that order: the first bad one is named", () => {
    const bad = {
      group_by: ["user_id"],
      limit: 100,
      page: "garbage",
      end_time: START,
      project_ids: ["x,".repeat(1001)],
    };
    const named: unknown[] = [];
    for (const param of ["group_by", "limit", "page", "end_time", "project_ids"] as const) {
      named.push(refusal(() => parse(bad)).param);
      delete bad[param];
    }
    expect(named).toEqual(["group_by", "limit", "page", "end_time", "project_ids"]);
  });

  it("answers others only, an empty page, when project_ids leaves out the member's project", () => {
    expect(parse({ project_ids: ["a,own"] }).othersOnly).toBe(false);
    expect(parse({ project_ids: ["a", "b"] }).othersOnly).toBe(true);
    expect(emptyPage()).toEqual({ object: "page", data: [], has_more: false, next_page: null });
  });

  it("names group_by when it lists too many items", () => {
    expect(refusal(() => parse({ group_by: [Array(1001).fill("model").join(",")] })).param).toBe("group_by");
  });
});

describe("listItems", () => {
  it("takes up to 1000 distinct trimmed items, empty ones dropped, and names the parameter past that", () => {
    expect(listItems(undefined, "models")).toBeUndefined();
    expect(listItems(["a, b,,", "a"], "models")).toEqual(["a", "b"]);
    expect(listItems([Array(1000).fill("m").join(",")], "models")).toEqual(["m"]);
    expect(refusal(() => listItems([Array(1001).fill("m").join(",")], "models"))).toEqual({
      status: 400,
      param: "models",
      code: "invalid_value",
      message: "Invalid value for 'models': at most 1000 items, 1001 given.",
    });
  });
});
