/**
 * One metered path for every agent run, and a limiter that reserves before and settles after:
 * MCP ask_* runs are metered and limited like chat completions, a stream left early is counted,
 * parallel requests cannot outrun a token limit, small answers refund their reservation, and the
 * deployment's limits are a ceiling for keys'.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../service/src/app.js";
import { loadConfig } from "../../service/src/config.js";
import { openStore } from "../../service/src/store/open.js";
import { agentsFileOf, buildTestApp, type TestApp } from "../helpers/app.js";
import { ACCEPT_BOTH, bearer, firstText, initializeMessage, listen, streamableClient } from "../helpers/mcp.js";
import { startLlmTestApp } from "../helpers/llm-app.js";
import { openTestStore } from "../helpers/store.js";

const AGENTS = agentsFileOf([
  { id: "syn", kind: "synthetic", tokens: 20 },
  { id: "slow", kind: "synthetic", tokens: 400, interval_ms: 10 },
]);
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function app(env: Record<string, string> = {}): Promise<TestApp> {
  const t = await buildTestApp("pglite", { AGENTS_FILE: AGENTS, ...env });
  cleanups.push(() => t.close());
  return t;
}

async function keyWith(t: TestApp, limits: { rateLimitRpm?: number; rateLimitTpm?: number }) {
  const { record, secret } = await t.app.apiKeys.create({
    projectId: "default",
    name: "limited",
    createdBy: "t",
    ...limits,
  });
  return { id: record.id, secret };
}

/** The usage rows of one key, once this replica's sums are written. */
async function usageOf(t: TestApp, keyId: string) {
  await t.app.usage.flush();
  const { rows } = await t.store.db.query<{ requests: string; input_tokens: string; output_tokens: string }>(
    "SELECT requests, input_tokens, output_tokens FROM usage_minutes WHERE api_key_id = $1",
    [keyId],
  );
  const sum = (k: "requests" | "input_tokens" | "output_tokens") => rows.reduce((n, r) => n + Number(r[k]), 0);
  return { requests: sum("requests"), input: sum("input_tokens"), output: sum("output_tokens") };
}

/** A raw Streamable HTTP POST with an optional session. */
function mcpPost(url: string, secret: string, body: unknown, session?: string) {
  return fetch(url, {
    method: "POST",
    headers: {
      ...bearer(secret),
      accept: ACCEPT_BOTH,
      "content-type": "application/json",
      ...(session && { "mcp-session-id": session, "mcp-protocol-version": "2025-03-26" }),
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });
}

describe("MCP ask_* runs go through the metered path", () => {
  it("are recorded as usage and spend the key's tokens (official MCP client)", async () => {
    const t = await app();
    const url = `${await listen(t)}/mcp`;
    const key = await keyWith(t, { rateLimitTpm: 60 });
    const { client } = await streamableClient(url, bearer(key.secret));
    cleanups.push(() => client.close());
    // Each run reserves 10 + 20 tokens (its text, the chat framing, its answer) while the minute is not spent: 2 of 6 parallel calls run.
    const results = await Promise.all(
      Array.from({ length: 6 }, () => client.callTool({ name: "ask_syn", arguments: { question: "Hello" } })),
    );
    const answered = results.filter((r) => !r.isError);
    const refused = results.filter((r) => r.isError);
    // Two fit in the unspent minute; a third may too when the first two's refunds (28 spent of 30) land
    // before it reserves: never more than the limit plus one run.
    expect(answered.length).toBeGreaterThanOrEqual(2);
    expect(answered.length).toBeLessThanOrEqual(3);
    expect(firstText(answered[0])).toMatch(/^Lorem ipsum/);
    expect(firstText(refused[0])).toContain("Rate limit reached for tokens: 60 per minute");
    const usage = await usageOf(t, key.id);
    expect(usage.requests).toBe(answered.length);
    expect(usage.output).toBe(20 * answered.length);
    expect(usage.input).toBeGreaterThan(0);
  });

  it("a JSON-RPC batch of 16 tool calls costs 16 request units, not one", async () => {
    const t = await app();
    const url = `${await listen(t)}/mcp`;
    const key = await keyWith(t, { rateLimitRpm: 10 });
    const init = await mcpPost(url, key.secret, initializeMessage("2025-03-26"));
    const session = init.headers.get("mcp-session-id")!;
    await init.text();
    await (await mcpPost(url, key.secret, { jsonrpc: "2.0", method: "notifications/initialized" }, session)).text();
    const batch = Array.from({ length: 16 }, (_, i) => ({
      jsonrpc: "2.0",
      id: 100 + i,
      method: "tools/call",
      params: { name: "ask_syn", arguments: { question: "Hello" } },
    }));
    const res = await mcpPost(url, key.secret, batch, session);
    expect(res.status).toBe(200);
    const text = await res.text();
    const messages = (
      res.headers.get("content-type")?.includes("text/event-stream")
        ? text
            .split("\n")
            .filter((l) => l.startsWith("data:"))
            .map((l) => JSON.parse(l.slice(5)))
        : [JSON.parse(text)]
    ).flat();
    const results = messages.filter((m) => m.id >= 100).map((m) => m.result);
    expect(results).toHaveLength(16);
    // Three HTTP requests so far (initialize, initialized, the batch) left 7 units for the runs.
    expect(results.filter((r) => !r.isError)).toHaveLength(7);
    expect(results.filter((r) => r.isError).map((r) => r.content[0].text)).toEqual(
      Array(9).fill(expect.stringContaining("Rate limit reached for requests: 10 per minute")),
    );
    expect((await usageOf(t, key.id)).requests).toBe(7);
  });
});

describe("a run is metered however it ends", () => {
  it("an MCP tool call whose client disconnects is cancelled, and metered with what it produced", async () => {
    const t = await app();
    const url = `${await listen(t)}/mcp`;
    const key = await keyWith(t, { rateLimitRpm: 100 });
    const init = await mcpPost(url, key.secret, initializeMessage("2025-03-26"));
    const session = init.headers.get("mcp-session-id")!;
    await init.text();
    const leave = new AbortController();
    const call = fetch(url, {
      method: "POST",
      headers: {
        ...bearer(key.secret),
        accept: ACCEPT_BOTH,
        "content-type": "application/json",
        "mcp-session-id": session,
        "mcp-protocol-version": "2025-03-26",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "ask_slow", arguments: { question: "Hello" } },
      }),
      signal: leave.signal,
    });
    // The slow agent streams 400 tokens 10 ms apart: leave once it has begun.
    await call;
    await new Promise((r) => setTimeout(r, 300));
    leave.abort();
    let usage = await usageOf(t, key.id);
    for (let i = 0; i < 200 && usage.requests === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      usage = await usageOf(t, key.id);
    }
    expect(usage.requests).toBe(1);
    expect(usage.output).toBeGreaterThan(0);
    expect(usage.output).toBeLessThan(400);
  });

  it("a stream the client leaves early is recorded with what was produced, and spends the key's tokens", async () => {
    const t = await app();
    const base = await listen(t);
    const key = await keyWith(t, { rateLimitTpm: 100_000 });
    const abort = new AbortController();
    const res = await fetch(`${base}/v1/chat/completions`, {
      method: "POST",
      headers: { ...bearer(key.secret), "content-type": "application/json" },
      body: JSON.stringify({ model: "agentport/slow", stream: true, messages: [{ role: "user", content: "Hello" }] }),
      signal: abort.signal,
    });
    // "Hello" is 2 tokens of text and 8 of the chat format's framing (estimate.ts).
    expect(res.headers.get("x-ratelimit-remaining-tokens")).toBe(String(100_000 - 10 - 400));
    // Read a few deltas, then leave.
    const reader = res.body!.getReader();
    let seen = "";
    while ((seen.match(/"content":"[^"]/g) ?? []).length < 5)
      seen += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    // The run ends on the server once it notices; its usage lands within a bounded wait.
    let usage = await usageOf(t, key.id);
    for (let i = 0; i < 100 && usage.requests === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      usage = await usageOf(t, key.id);
    }
    expect(usage.requests).toBe(1);
    expect(usage.output).toBeGreaterThanOrEqual(1);
    expect(usage.output).toBeLessThan(400);
    // The window was settled to it: the next request sees the refund of what was not produced.
    const next = await t.app.inject({
      method: "POST",
      url: "/v1/chat/completions",
      headers: bearer(key.secret),
      payload: { model: "agentport/syn", messages: [{ role: "user", content: "Hello" }] },
    });
    const remaining = Number(next.headers["x-ratelimit-remaining-tokens"]);
    expect(remaining).toBe(100_000 - usage.input - usage.output - 30);
  });

  it("settlement refunds: a small answer under a large max_tokens does not burn the window", async () => {
    const llm = await startLlmTestApp([{ id: "echo", kind: "llm", model: "echo" }], { RATE_LIMIT_TPM: "5000" });
    cleanups.push(() => llm.close());
    const first = await llm.client.chat.completions.create({
      model: "agentport/echo",
      max_tokens: 2000,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(first.usage?.total_tokens).toBe(18);
    // Reserved 9 + 2000 (refused for anyone else meanwhile), settled to the answer's 18.
    const second = await llm.client.chat.completions
      .create({ model: "agentport/echo", max_tokens: 10, messages: [{ role: "user", content: "hi" }] })
      .withResponse();
    expect(second.response.headers.get("x-ratelimit-remaining-tokens")).toBe(String(5000 - 18 - (9 + 10)));
  });
});

describe("tokens per minute across replicas", () => {
  const shared: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const c of shared) await c();
  });

  async function replicas(env: Record<string, string>): Promise<[FastifyInstance, FastifyInstance]> {
    const store = await openTestStore("postgres");
    shared.push(() => store.drop());
    const replica = async () => {
      const config = loadConfig({
        DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-kl-")),
        JWT_SECRET: "s".repeat(64),
        LOG_LEVEL: "silent",
        REDIS_URL: "redis://127.0.0.1:6379",
        AGENTS_FILE: AGENTS,
        ...env,
      });
      const db = await openStore({ databaseUrl: store.url });
      const a = await buildApp({ config, db, logger: false });
      await a.ready();
      shared.unshift(async () => {
        await a.close();
        await db.close();
      });
      return a;
    };
    return [await replica(), await replica()];
  }

  it("20 parallel requests on two replicas are served at most the limit plus one request's estimate", async () => {
    const [a, b] = await replicas({ RATE_LIMIT_TPM: "100" });
    const { secret } = await a.apiKeys.create({
      projectId: "p-" + randomBytes(4).toString("hex"),
      name: "burst",
      createdBy: "t",
    });
    const chat = (r: FastifyInstance) =>
      r.inject({
        method: "POST",
        url: "/v1/chat/completions",
        headers: bearer(secret),
        payload: { model: "agentport/syn", messages: [{ role: "user", content: "Hello" }] },
      });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => chat(i % 2 ? a : b)));
    const served = answers.filter((r) => r.statusCode === 200);
    // Each reserves 30 (10 of prompt, 20 of answer) while the window is under 100: 30, 60, 90, 120,
    // then the rest are refused: the limit plus one request's estimate.
    expect(served.length).toBe(4);
    expect(answers.filter((r) => r.statusCode === 429)).toHaveLength(16);
  });
});

describe("a chat request is one request unit", () => {
  it("whether it runs or is refused for its body or model", async () => {
    const t = await app();
    const key = await keyWith(t, { rateLimitRpm: 3 });
    const chat = (payload: object) =>
      t.app.inject({ method: "POST", url: "/v1/chat/completions", headers: bearer(key.secret), payload });
    const ran = await chat({ model: "agentport/syn", messages: [{ role: "user", content: "Hello" }] });
    expect(ran.statusCode).toBe(200);
    expect(ran.headers["x-ratelimit-remaining-requests"]).toBe("2");
    expect((await chat({ model: "agentport/syn", messages: "not a list" })).statusCode).toBe(400);
    const unknown = await chat({ model: "agentport/nope", messages: [{ role: "user", content: "Hello" }] });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers["x-ratelimit-remaining-requests"]).toBe("0");
    expect((await chat({ model: "agentport/syn", messages: [{ role: "user", content: "Hello" }] })).statusCode).toBe(
      429,
    );
  });
});

describe("the deployment's limits are a ceiling for keys", () => {
  it("refuses a key's limit above the deployment's, and one the column cannot store, naming the field", async () => {
    const t = await app({ RATE_LIMIT_RPM: "100" });
    const owner = { authorization: `Bearer ${await t.memberToken("owner")}` };
    const create = (rate_limits: object) =>
      t.app.inject({
        method: "POST",
        url: "/v1/organization/projects/default/api_keys",
        headers: owner,
        payload: { name: "k", rate_limits },
      });
    const above = await create({ rpm: 101 });
    expect(above.statusCode).toBe(400);
    expect(above.json().error).toMatchObject({ param: "rate_limits.rpm", type: "invalid_request_error" });
    expect(above.json().error.message).toContain("above this deployment's limit of 100 (RATE_LIMIT_RPM)");
    const huge = await create({ tpm: 2_147_483_648 });
    expect(huge.statusCode).toBe(400);
    expect(huge.json().error.param).toBe("rate_limits.tpm");
    expect(huge.json().error.message).not.toContain("NUL");
    expect((await create({ rpm: 100, tpm: 2_147_483_647 })).statusCode).toBe(201);
  });

  it("caps a key made before the deployment lowered its limit", async () => {
    const t = await app({ RATE_LIMIT_RPM: "2" });
    const key = await keyWith(t, { rateLimitRpm: 50 });
    const models = () => t.app.inject({ url: "/v1/models", headers: bearer(key.secret) });
    const first = await models();
    expect(first.headers["x-ratelimit-limit-requests"]).toBe("2");
    expect((await models()).statusCode).toBe(200);
    expect((await models()).statusCode).toBe(429);
  });
});
