/**
 * Spend and budgets across two replicas on the real PostgreSQL server and Redis, with a fake
 * upstream that reports usage (chat 11 + 7 tokens, Responses 5 + 3, embeddings 7 an input).
 * Prices of 3 and 15 micro-dollars a token ($3 and $15 per million) make every run's cost exactly
 * its tokens × its prices, so the rows can be checked to the micro-dollar.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import OpenAI from "openai";
import { openaiClient } from "../../helpers/openai-client.js";
import { bearer, firstText, streamableClient } from "../../helpers/mcp.js";
import { REDIS_URL, startSpendReplicas, type SpendReplicas } from "../../helpers/spend-replicas.js";

const PRICE = { input: 3, output: 15 };
const AGENTS = [
  { id: "gpt", kind: "llm", model: "echo", pricing: PRICE },
  { id: "slow", kind: "llm", model: "hang", pricing: PRICE },
  { id: "embed", kind: "llm", model: "embed", embeddings: true, pricing: PRICE },
  { id: "resp", kind: "llm", model: "echo", responses: true, pricing: PRICE },
  { id: "free", kind: "llm", model: "echo" },
];
/** A prompt whose estimate (≥ 15 tokens) is above the stub's 11: the reservation covers the run. */
const PROMPT = "please answer this question about the weather in Paris today";
/** What one chat run costs with the stub's usage: 11 × 3 + 7 × 15. */
const CHAT_RUN = 11 * 3 + 7 * 15;

let env: SpendReplicas;
/** Reads the shared budget windows as the replicas left them. */
const admin = new Redis(REDIS_URL);
beforeAll(async () => {
  env = await startSpendReplicas(AGENTS);
}, 60_000);
afterAll(async () => {
  admin.disconnect();
  await env?.close();
});

/** Creates a key through the API (replica 0) with `budget`; answers its id, secret and object. */
async function createKey(body: object = {}, project = "default") {
  const res = await fetch(`${env.replicas[0].baseURL}/organization/projects/${project}/api_keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${await env.ownerToken(project)}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "spend test", ...body }),
  });
  const json = (await res.json()) as Record<string, unknown> & { id: string; secret: string };
  return { status: res.status, json };
}

const clients = (secret: string): [OpenAI, OpenAI] => [
  openaiClient(env.replicas[0].baseURL, secret),
  openaiClient(env.replicas[1].baseURL, secret),
];

interface Row {
  model: string;
  requests: string;
  input_tokens: string;
  output_tokens: string;
  input_cost_micro_usd: string;
  output_cost_micro_usd: string;
}
async function rowsOf(keyId: string): Promise<Row[]> {
  await env.flush();
  return (
    await env.store.db.query<Row>(
      `SELECT model, sum(requests) AS requests, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
              sum(input_cost_micro_usd) AS input_cost_micro_usd, sum(output_cost_micro_usd) AS output_cost_micro_usd
         FROM usage_minutes WHERE api_key_id = $1 GROUP BY model ORDER BY model`,
      [keyId],
    )
  ).rows;
}

/** Waits (bounded) until `check` holds. */
async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("what runs cost, across replicas", () => {
  it("costs are tokens × prices to the micro-dollar for JSON, SSE, Responses, embeddings, MCP ask_* and abandoned runs", async () => {
    const key = (await createKey()).json;
    const [a, b] = clients(key.secret);
    await a.chat.completions.create({ model: "agentport/gpt", messages: [{ role: "user", content: PROMPT }] });
    const stream = await b.chat.completions.create({
      model: "agentport/gpt",
      messages: [{ role: "user", content: PROMPT }],
      stream: true,
    });
    for await (const _ of stream) void _;
    await a.responses.create({ model: "agentport/resp", input: PROMPT });
    await b.embeddings.create({ model: "agentport/embed", input: ["one", "two", "three"] });
    await a.chat.completions.create({ model: "agentport/free", messages: [{ role: "user", content: PROMPT }] });
    // MCP: one ask_* run on replica 1.
    const { client } = await streamableClient(env.replicas[1].baseURL.replace(/\/v1$/, "/mcp"), bearer(key.secret));
    const tools = await client.listTools();
    const ask = tools.tools.find((t) => t.name === "ask_gpt")!;
    expect(firstText(await client.callTool({ name: ask.name, arguments: { question: PROMPT } }))).toContain("Paris");
    await client.close();
    // Abandoned: the stream is left after its first chunk; the run is metered from its estimate.
    const abort = new AbortController();
    const res = await fetch(`${env.replicas[0].baseURL}/chat/completions`, {
      method: "POST",
      headers: { ...bearer(key.secret), "content-type": "application/json" },
      body: JSON.stringify({ model: "agentport/slow", stream: true, messages: [{ role: "user", content: PROMPT }] }),
      signal: abort.signal,
    });
    await res.body!.getReader().read();
    abort.abort();
    await until(async () => (await rowsOf(key.id)).some((r) => r.model === "agentport/slow"));

    const rows = await rowsOf(key.id);
    const by = Object.fromEntries(rows.map((r) => [r.model, r]));
    // Every priced row: exactly tokens × prices.
    for (const r of rows.filter((r) => r.model !== "agentport/free")) {
      expect(Number(r.input_cost_micro_usd), r.model).toBe(Number(r.input_tokens) * PRICE.input);
      expect(Number(r.output_cost_micro_usd), r.model).toBe(Number(r.output_tokens) * PRICE.output);
    }
    // JSON + SSE + MCP: three chat runs of 11 + 7; Responses 5 + 3; embeddings 3 × 7; the free agent costs 0.
    expect(by["agentport/gpt"]).toMatchObject({ requests: "3", input_tokens: "33", output_tokens: "21" });
    expect(Number(by["agentport/gpt"].input_cost_micro_usd) + Number(by["agentport/gpt"].output_cost_micro_usd)).toBe(
      3 * CHAT_RUN,
    );
    expect(by["agentport/resp"]).toMatchObject({ input_tokens: "5", output_tokens: "3", input_cost_micro_usd: "15" });
    expect(by["agentport/embed"]).toMatchObject({ input_tokens: "21", input_cost_micro_usd: "63" });
    expect(by["agentport/free"]).toMatchObject({ input_cost_micro_usd: "0", output_cost_micro_usd: "0" });
    expect(Number(by["agentport/slow"].input_tokens)).toBeGreaterThan(0);

    // The costs API says the same, per line item, and the key object shows what it spent.
    const total = rows.reduce((n, r) => n + Number(r.input_cost_micro_usd) + Number(r.output_cost_micro_usd), 0);
    const start = Math.floor(Date.now() / 1000) - 3600;
    const costs = await fetch(
      `${env.replicas[1].baseURL}/organization/costs?start_time=${start}&group_by=api_key_id,line_item`,
      { headers: { authorization: `Bearer ${await env.ownerToken()}` } },
    );
    const page = (await costs.json()) as {
      data: { results: { amount: { value: number; currency: string }; line_item: string; api_key_id: string }[] }[];
    };
    const mine = page.data.flatMap((d) => d.results).filter((r) => r.api_key_id === key.id);
    expect(mine.find((r) => r.line_item === "agentport/gpt, output")?.amount).toEqual({
      value: (21 * 15) / 1e6,
      currency: "usd",
    });
    expect(Math.round(mine.reduce((n, r) => n + r.amount.value, 0) * 1e6)).toBe(total);
    const got = await fetch(`${env.replicas[1].baseURL}/organization/projects/default/api_keys/${key.id}`, {
      headers: { authorization: `Bearer ${await env.ownerToken()}` },
    });
    expect(((await got.json()) as { spent_usd: number }).spent_usd).toBeCloseTo(total / 1e6, 9);
    // The spend counter per project and model.
    const metrics = await (await fetch(env.replicas[0].baseURL.replace(/\/v1$/, "/metrics"))).text();
    expect(metrics).toMatch(/agentport_spend_usd_total\{project="default",model="agentport\/gpt"\} [0-9.e-]+/);
  }, 60_000);
});

describe("budgets across replicas", () => {
  it("a key's budget refuses at its limit with insufficient_quota, naming it and its reset", async () => {
    const { status, json: key } = await createKey({ budget: { limit_usd: 0.001, period: "1d" } });
    expect(status).toBe(201);
    expect(key).toMatchObject({ budget: { limit_usd: 0.001, period: "1d" }, spent_usd: 0 });
    expect(key.resets_at).toBeGreaterThan(Date.now() / 1000);
    const [a, b] = clients(key.secret);
    let admitted = 0;
    let refusal: unknown;
    const counted = async () => Number(await admin.hget(`agentport-budget:key:${key.id}`, "c"));
    for (let i = 0; i < 12 && !refusal; i++) {
      try {
        await [a, b][i % 2].chat.completions.create({
          model: "agentport/gpt",
          max_tokens: 7,
          messages: [{ role: "user", content: PROMPT }],
        });
      } catch (err) {
        refusal = err;
        break;
      }
      admitted++;
      // Its settlement (the estimate's 177 µ$ down to 138) lands in a batch a few ms later; the next
      // run waits for it, or how many run would depend on the machine's pace.
      await until(async () => (await counted()) === admitted * CHAT_RUN);
    }
    // 138 µ$ a run: a run starts while less than 1,000 is counted, so the 8th (at 966) does and the
    // 9th (at 1,104) is refused.
    expect(admitted).toBe(8);
    const spent = (await rowsOf(key.id)).reduce(
      (n, r) => n + Number(r.input_cost_micro_usd) + Number(r.output_cost_micro_usd),
      0,
    );
    expect(spent).toBe(admitted * CHAT_RUN);
    expect(refusal).toBeInstanceOf(OpenAI.RateLimitError);
    const error = (refusal as InstanceType<typeof OpenAI.RateLimitError>).error as Record<string, unknown>;
    expect(error).toMatchObject({ type: "insufficient_quota", code: "insufficient_quota" });
    expect(String(error.message)).toMatch(/key's budget of \$0\.001 per 1d is spent\. It resets at 20\d\d-/);
  }, 60_000);

  it("20 parallel requests on two replicas overshoot the budget by at most one request's cost", async () => {
    const limit = 1_000;
    const key = (await createKey({ budget: { limit_usd: limit / 1e6, period: "1d" } })).json;
    const [a, b] = clients(key.secret);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        [a, b][i % 2].chat.completions.create({
          model: "agentport/gpt",
          max_tokens: 7,
          messages: [{ role: "user", content: PROMPT }],
        }),
      ),
    );
    const refused = outcomes.filter((o) => o.status === "rejected");
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect((r.reason as { code?: string }).code).toBe("insufficient_quota");
    const rows = await rowsOf(key.id);
    const spent = rows.reduce((n, r) => n + Number(r.input_cost_micro_usd) + Number(r.output_cost_micro_usd), 0);
    expect(spent).toBe((20 - refused.length) * CHAT_RUN);
    expect(spent).toBeLessThanOrEqual(limit + CHAT_RUN);
  }, 60_000);

  it("a project's budget holds every key of the project, and a key's may not exceed it", async () => {
    const project = "budgeted-" + Date.now().toString(36);
    const owner = { authorization: `Bearer ${await env.ownerToken(project)}`, "content-type": "application/json" };
    const put = await fetch(`${env.replicas[1].baseURL}/organization/projects/${project}/budget`, {
      method: "PUT",
      headers: owner,
      body: JSON.stringify({ limit_usd: 0.0005, period: "1mo" }),
    });
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ budget: { limit_usd: 0.0005, period: "1mo" }, spent_usd: 0 });
    const above = await createKey({ budget: { limit_usd: 0.001, period: "1d" } }, project);
    expect(above.status).toBe(400);
    expect(above.json).toMatchObject({ error: { param: "budget.limit_usd" } });
    // Two keys share the project's $0.0005, 138 µ$ a run.
    const k1 = (await createKey({}, project)).json;
    const k2 = (await createKey({}, project)).json;
    const [a] = clients(k1.secret);
    const [, b] = clients(k2.secret);
    const codes: string[] = [];
    for (let i = 0; i < 6; i++) {
      try {
        await [a, b][i % 2].chat.completions.create({
          model: "agentport/gpt",
          max_tokens: 7,
          messages: [{ role: "user", content: PROMPT }],
        });
        codes.push("ok");
      } catch (err) {
        codes.push(String((err as { code?: string }).code));
        expect(String((err as Error).message)).toContain("project's budget of $0.0005 per 1mo");
      }
    }
    // 3 runs always start (414 spent); a 4th when the 3rd's refund (its estimate was 177) landed first.
    const ran = codes.filter((c) => c === "ok").length;
    expect([3, 4]).toContain(ran);
    expect(codes.filter((c) => c !== "ok")).toEqual(Array(6 - ran).fill("insufficient_quota"));
    const spent = [...(await rowsOf(k1.id)), ...(await rowsOf(k2.id))].reduce(
      (n, r) => n + Number(r.input_cost_micro_usd) + Number(r.output_cost_micro_usd),
      0,
    );
    expect(spent).toBe(ran * CHAT_RUN);
    expect(spent).toBeLessThanOrEqual(500 + CHAT_RUN);
  }, 60_000);

  it("a short period resets: refused at the limit, admitted again once the period ends", async () => {
    const key = (await createKey({ budget: { limit_usd: 0.0001, period: "2s" } })).json;
    const [a, b] = clients(key.secret);
    const ask = (c: OpenAI) =>
      c.chat.completions.create({
        model: "agentport/gpt",
        max_tokens: 7,
        messages: [{ role: "user", content: PROMPT }],
      });
    await ask(a); // 138 µ$ > 100: spent
    const refused = await ask(b).catch((err: unknown) => err as { code?: string; headers?: Headers });
    expect((refused as { code?: string }).code).toBe("insufficient_quota");
    const retryAfter = Number((refused as { headers: Headers }).headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(2);
    // Bounded: within two periods one run is admitted again, on either replica.
    let admitted = false;
    const deadline = Date.now() + 4_500;
    while (!admitted && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      admitted = await ask(b).then(
        () => true,
        () => false,
      );
    }
    expect(admitted).toBe(true);
  }, 30_000);
});
