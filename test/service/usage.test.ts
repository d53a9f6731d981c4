/**
 * Usage per key and model: counted from what each completion reported, summed in memory, written
 * to PostgreSQL in batches, read back in the shape of OpenAI's usage API.
 */
import { afterAll, describe, expect, it } from "vitest";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { buildTestApp, type TestApp } from "../helpers/app.js";
import { listen, openaiClient } from "../helpers/openai-client.js";
import { openTestStore, STORE_KINDS } from "../helpers/store.js";
import { UsageMeter } from "../../service/src/domain/usage/usage-meter.js";
import type { Db } from "../../service/src/store/db.js";

const SYNTHETIC = "agentport/synthetic-20";
const FILES = "agentport/chat:latest";
const minuteAgo = () => Math.floor(Date.now() / 1000) - 60;

async function usage(t: TestApp, query: string, token?: string) {
  const res = await t.app.inject({
    url: `/v1/organization/usage/completions?${query}`,
    headers: { authorization: `Bearer ${token ?? (await t.memberToken("member"))}` },
  });
  return { status: res.statusCode, body: res.json() };
}

describe.each(STORE_KINDS)("usage per key and model (%s)", (kind) => {
  let t: TestApp;
  afterAll(() => t?.close());

  it("sums what each completion reported, per key and model, in OpenAI's usage shape", async () => {
    t = await buildTestApp(kind);
    const base = await listen(t.app);
    const a = await t.createKey("default", "a");
    const b = await t.createKey("default", "b");
    const other = await t.createKey("elsewhere", "c");
    const reported = new Map<string, { input: number; output: number; requests: number }>();
    const add = (keyId: string, model: string, u: { prompt_tokens: number; completion_tokens: number }) => {
      const k = `${keyId} ${model}`;
      const s = reported.get(k) ?? { input: 0, output: 0, requests: 0 };
      reported.set(k, {
        input: s.input + u.prompt_tokens,
        output: s.output + u.completion_tokens,
        requests: s.requests + 1,
      });
    };

    const clientA = openaiClient(base, a.secret);
    for (const content of ["Hello", "What is in my files about invoices?"]) {
      const r = await clientA.chat.completions.create({ model: SYNTHETIC, messages: [{ role: "user", content }] });
      add(a.id, SYNTHETIC, r.usage!);
    }
    const stream = await clientA.chat.completions.create({
      model: FILES,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "invoices" }],
    });
    let streamed: { prompt_tokens: number; completion_tokens: number } | undefined;
    for await (const chunk of stream) if (chunk.usage) streamed = chunk.usage;
    add(a.id, FILES, streamed!);
    const rb = await openaiClient(base, b.secret).chat.completions.create({
      model: SYNTHETIC,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hi" },
      ],
    });
    add(b.id, SYNTHETIC, rb.usage!);
    await openaiClient(base, other.secret).chat.completions.create({
      model: SYNTHETIC,
      messages: [{ role: "user", content: "not ours" }],
    });

    const { status, body } = await usage(t, `start_time=${minuteAgo()}&bucket_width=1m&group_by=api_key_id,model`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ object: "page", has_more: false, next_page: null });
    const results = body.data.flatMap((bucket: { results: unknown[] }) => bucket.results) as Array<
      Record<string, unknown>
    >;
    const seen = new Map<string, { input: number; output: number; requests: number }>();
    for (const r of results) {
      expect(r).toMatchObject({
        object: "organization.usage.completions.result",
        input_cached_tokens: 0,
        user_id: null,
        batch: null,
        project_id: null,
      });
      const k = `${r.api_key_id} ${r.model}`;
      const s = seen.get(k) ?? { input: 0, output: 0, requests: 0 };
      seen.set(k, {
        input: s.input + (r.input_tokens as number),
        output: s.output + (r.output_tokens as number),
        requests: s.requests + (r.num_model_requests as number),
      });
    }
    // Exactly this project's keys, with what the answers reported (the other project's key is not shown).
    expect(seen).toEqual(reported);

    // Ungrouped: one total a bucket; a key filter narrows it; another project's member sees only theirs.
    const total = await usage(t, `start_time=${minuteAgo()}&bucket_width=1h`);
    const sum = (page: { data: Array<{ results: Array<{ num_model_requests: number }> }> }) =>
      page.data.flatMap((d) => d.results).reduce((n, r) => n + r.num_model_requests, 0);
    expect(sum(total.body)).toBe(4);
    expect(total.body.data.flatMap((d: { results: unknown[] }) => d.results)[0]).toMatchObject({
      api_key_id: null,
      model: null,
    });
    expect(sum((await usage(t, `start_time=${minuteAgo()}&bucket_width=1h&api_key_ids=${b.id}`)).body)).toBe(1);
    expect(sum((await usage(t, `start_time=${minuteAgo()}&bucket_width=1h&models=${FILES}`)).body)).toBe(1);
    expect(
      sum(
        (await usage(t, `start_time=${minuteAgo()}&bucket_width=1h`, await t.memberToken("member", "elsewhere"))).body,
      ),
    ).toBe(1);
  });

  it("counts offline agents' tokens with a real tokenizer, as OpenAI counts a chat prompt", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/v1/chat/completions",
      headers: { authorization: `Bearer ${(await t.createKey()).secret}` },
      payload: { model: FILES, messages: [{ role: "user", content: "Hello" }] },
    });
    const body = res.json();
    // A one-message "Hello" prompt is 8 tokens for GPT-4o: 3 per message, role, text, 3 priming the reply.
    expect(body.usage.prompt_tokens).toBe(8);
    expect(body.usage.completion_tokens).toBe(countTokens(body.choices[0].message.content));
  });

  it("lists every bucket of the range, empty ones too, and pages by next_page", async () => {
    const day = 86_400;
    const start = Math.floor(Date.now() / 1000 / day) * day - 9 * day;
    const first = await usage(t, `start_time=${start}&limit=3`);
    expect(first.status).toBe(200);
    expect(first.body.data.map((d: { start_time: number; end_time: number }) => [d.start_time, d.end_time])).toEqual(
      [0, 1, 2].map((i) => [start + i * day, start + (i + 1) * day]),
    );
    expect(first.body.data.every((d: { results: unknown[] }) => d.results.length === 0)).toBe(true);
    expect(first.body.has_more).toBe(true);
    const pages = [first.body];
    while (pages.at(-1).has_more)
      pages.push((await usage(t, `start_time=${start}&limit=3&page=${pages.at(-1).next_page}`)).body);
    const buckets = pages.flatMap((p) => p.data);
    // Ten days up to today's bucket, each once, in order; today's holds this file's requests.
    expect(buckets.map((d: { start_time: number }) => d.start_time)).toEqual(
      Array.from({ length: 10 }, (_, i) => start + i * day),
    );
    expect(buckets.at(-1).results[0].num_model_requests).toBeGreaterThanOrEqual(5);
  });

  it("refuses what it cannot answer, naming the parameter", async () => {
    /** 1,800 values: six parameters of 300 comma-separated ones, each within the schema's limits. */
    const repeated = (param: string, value: string) =>
      Array(6)
        .fill(`${param}=${Array(300).fill(value).join(",")}`)
        .join("&");
    const cases: Array<[string, string, string]> = [
      ["bucket_width=1d", "start_time", "missing_required_parameter"],
      [`start_time=${minuteAgo()}&group_by=user_id`, "group_by", "unsupported_value"],
      [`start_time=${minuteAgo()}&bucket_width=1h&limit=169`, "limit", "invalid_value"],
      [`start_time=${minuteAgo()}&bucket_width=2h`, "bucket_width", "invalid_value"],
      [`start_time=${minuteAgo()}&end_time=${minuteAgo() - 60}`, "end_time", "invalid_value"],
      [`start_time=${minuteAgo()}&page=garbage`, "page", "invalid_value"],
      // A cursor crafted to a time no date holds, and a list that splits into thousands of items.
      [
        `start_time=${minuteAgo()}&page=page_${Buffer.from("9007199254740991").toString("base64url")}`,
        "page",
        "invalid_value",
      ],
      [`start_time=${minuteAgo()}&${repeated("group_by", "model")}`, "group_by", "invalid_value"],
      [`start_time=${minuteAgo()}&${repeated("models", "m")}`, "models", "invalid_value"],
    ];
    for (const [query, param, code] of cases) {
      const { status, body } = await usage(t, query);
      expect({ query, status, param: body.error.param, code: body.error.code }).toEqual({
        query,
        status: 400,
        param,
        code,
      });
    }
    const noToken = await t.app.inject({ url: `/v1/organization/usage/completions?start_time=${minuteAgo()}` });
    expect(noToken.statusCode).toBe(401);
  });
});

describe("usage written by several replicas", () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it("replicas add to the same rows, and a failed write keeps its sums for the next", async () => {
    const store = await openTestStore("postgres");
    cleanups.push(() => store.drop());
    let failNext = false;
    // The store refuses one write, as it would during a failover.
    const flaky: Db = {
      ...store.db,
      query: (sql: string, params?: unknown[]) => {
        if (failNext && sql.includes("INSERT INTO usage_minutes")) {
          failNext = false;
          return Promise.reject(new Error("connection terminated"));
        }
        return store.db.query(sql, params);
      },
    };
    const [a, b] = [new UsageMeter(flaky), new UsageMeter(store.db)];
    const at = Date.UTC(2026, 0, 1, 12, 30, 15);
    const use = { projectId: "p", keyId: "key_1", model: "m", inputTokens: 10, outputTokens: 5 };
    a.record(use, at);
    a.record(use, at + 1000);
    b.record(use, at + 2000);
    failNext = true;
    await expect(a.flush()).rejects.toThrow("connection terminated");
    a.record(use, at + 3000);
    await Promise.all([a.flush(), b.flush()]);
    const { rows } = await store.db.query<{ requests: string; input_tokens: string; output_tokens: string }>(
      "SELECT requests, input_tokens, output_tokens FROM usage_minutes",
    );
    expect(rows.map((r) => [Number(r.requests), Number(r.input_tokens), Number(r.output_tokens)])).toEqual([
      [4, 40, 20],
    ]);
    // Nothing left to write: a further flush adds nothing.
    await a.flush();
    expect(
      Number((await store.db.query<{ requests: string }>("SELECT requests FROM usage_minutes")).rows[0].requests),
    ).toBe(4);
  });

  it("a row the store refuses is dropped with a log line; the others, and every later write, still land", async () => {
    const store = await openTestStore("postgres");
    cleanups.push(() => store.drop());
    const logged: string[] = [];
    const log = {
      warn: (_: object, msg: string) => void logged.push(msg),
      error: (_: object, msg: string) => void logged.push(msg),
    };
    const meter = new UsageMeter(store.db, log);
    const at = Date.UTC(2026, 0, 1, 12, 30, 15);
    const use = { projectId: "p", keyId: "key_1", model: "m", inputTokens: 10, outputTokens: 5 };
    meter.record(use, at);
    // A NUL character PostgreSQL cannot store, and counts no upstream should report.
    meter.record({ ...use, model: "bad\u0000model" }, at);
    meter.record({ ...use, keyId: "key_2", outputTokens: null as unknown as number, inputTokens: -3.5 }, at);
    await meter.flush().catch(() => {});
    meter.record(use, at + 60_000);
    await meter.flush();
    const { rows } = await store.db.query<{
      api_key_id: string;
      requests: string;
      input_tokens: string;
      output_tokens: string;
    }>("SELECT api_key_id, requests, input_tokens, output_tokens FROM usage_minutes ORDER BY minute, api_key_id");
    expect(
      rows.map((r) => [r.api_key_id, Number(r.requests), Number(r.input_tokens), Number(r.output_tokens)]),
    ).toEqual([
      ["key_1", 1, 10, 5],
      ["key_2", 1, 0, 0],
      ["key_1", 1, 10, 5],
    ]);
    expect(logged).toContain("usage: sums the store would not take were dropped");
    expect(logged).toContain("usage: a token count that is not a count was recorded as 0");
  });
});
