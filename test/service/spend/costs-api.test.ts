/**
 * GET /v1/organization/costs on the real PostgreSQL server: OpenAI's shape (buckets of
 * `organization.costs.result`, `amount: {value, currency: "usd"}`, `line_item`, `project_id`),
 * pages of `limit` buckets followed by `next_page`, the groupings (OpenAI's and `api_key_id`,
 * `model`), and a 400 naming each bad parameter.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../helpers/app.js";

const DAY = 86_400;
let t: TestApp;
let token: string;
/** Three whole UTC days before today. */
const day0 = Math.floor(Date.now() / 1000 / DAY) * DAY - 3 * DAY;

beforeAll(async () => {
  t = await buildTestApp("postgres");
  token = await t.memberToken("member");
  // Spend on days 0 and 2 (none on day 1), by two keys and two models; another project's is never shown.
  const rows: Array<[string, string, string, number, number, number]> = [
    ["default", "key_a", "m1", day0 + 60, 1_000_000, 250_000],
    ["default", "key_a", "m2", day0 + 120, 10, 0],
    ["default", "key_b", "m1", day0 + 2 * DAY + 600, 3, 4],
    ["other", "key_c", "m1", day0 + 60, 999, 999],
  ];
  for (const [project, key, model, at, input, output] of rows)
    await t.store.db.query(
      `INSERT INTO usage_minutes (project_id, api_key_id, model, minute, requests, input_tokens, output_tokens,
         input_cost_micro_usd, output_cost_micro_usd) VALUES ($1, $2, $3, $4, 1, 1, 1, $5, $6)`,
      [project, key, model, new Date(at * 1000).toISOString(), input, output],
    );
}, 60_000);
afterAll(async () => t?.close());

async function costs(query: string) {
  const res = await t.app.inject({
    url: `/v1/organization/costs?${query}`,
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.statusCode, body: res.json() };
}

describe("the costs API", () => {
  it("answers OpenAI's shape, one bucket a day, empty days included, amounts in USD", async () => {
    const { status, body } = await costs(`start_time=${day0}&end_time=${day0 + 3 * DAY}`);
    expect(status).toBe(200);
    expect(body).toEqual({
      object: "page",
      has_more: false,
      next_page: null,
      data: [
        {
          object: "bucket",
          start_time: day0,
          end_time: day0 + DAY,
          results: [
            {
              object: "organization.costs.result",
              amount: { value: 1.25001, currency: "usd" },
              line_item: null,
              project_id: null,
              api_key_id: null,
              model: null,
            },
          ],
        },
        { object: "bucket", start_time: day0 + DAY, end_time: day0 + 2 * DAY, results: [] },
        {
          object: "bucket",
          start_time: day0 + 2 * DAY,
          end_time: day0 + 3 * DAY,
          results: [expect.objectContaining({ amount: { value: 0.000007, currency: "usd" } })],
        },
      ],
    });
  });

  it("pages by `limit` buckets: next_page goes on where the last page stopped, until has_more is false", async () => {
    const first = (await costs(`start_time=${day0}&end_time=${day0 + 3 * DAY}&limit=2`)).body;
    expect(first.data.map((b: { start_time: number }) => b.start_time)).toEqual([day0, day0 + DAY]);
    expect(first.has_more).toBe(true);
    const second = (await costs(`start_time=${day0}&end_time=${day0 + 3 * DAY}&limit=2&page=${first.next_page}`)).body;
    expect(second.data.map((b: { start_time: number }) => b.start_time)).toEqual([day0 + 2 * DAY]);
    expect(second).toMatchObject({ has_more: false, next_page: null });
  });

  it("groups by line item and project (OpenAI's), and by api_key_id and model", async () => {
    const q = `start_time=${day0}&end_time=${day0 + DAY}`;
    const lines = (await costs(`${q}&group_by=line_item,project_id`)).body.data[0].results;
    expect(
      lines.map((r: { line_item: string; project_id: string; amount: { value: number } }) => [
        r.line_item,
        r.project_id,
        r.amount.value,
      ]),
    ).toEqual([
      ["m1, input", "default", 1],
      ["m1, output", "default", 0.25],
      ["m2, input", "default", 0.00001],
    ]);
    const keys = (await costs(`${q}&group_by=api_key_id&group_by=model`)).body.data[0].results;
    expect(
      keys.map((r: { api_key_id: string; model: string; amount: { value: number } }) => [
        r.api_key_id,
        r.model,
        r.amount.value,
      ]),
    ).toEqual([
      ["key_a", "m1", 1.25],
      ["key_a", "m2", 0.00001],
    ]);
    // Another project is not the member's: filtering to it leaves nothing.
    expect((await costs(`${q}&project_ids=other`)).body.data).toEqual([]);
  });

  it("refuses bad parameters with a 400 naming each", async () => {
    const cases: Array<[string, string]> = [
      ["bucket_width=1d", "start_time"],
      [`start_time=${day0}&group_by=user_id`, "group_by"],
      [`start_time=${day0}&limit=181`, "limit"],
      [`start_time=${day0}&limit=0`, "limit"],
      [`start_time=${day0}&bucket_width=1w`, "bucket_width"],
      [`start_time=${day0}&end_time=${day0}`, "end_time"],
      [`start_time=${day0}&page=garbage`, "page"],
      [`start_time=-5`, "start_time"],
    ];
    for (const [query, param] of cases) {
      const { status, body } = await costs(query);
      expect({ query, status, param: body.error.param, type: body.error.type }).toEqual({
        query,
        status: 400,
        param,
        type: "invalid_request_error",
      });
    }
    expect((await t.app.inject({ url: `/v1/organization/costs?start_time=${day0}` })).statusCode).toBe(401);
  });
});
