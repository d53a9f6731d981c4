import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../service/src/app.js";
import { openStore } from "../../service/src/store/open.js";
import { loadConfig } from "../../service/src/config.js";
import { resetDuration } from "../../service/src/plugins/key-limits.js";
import { buildTestApp, type TestApp } from "../helpers/app.js";
import { listen, openaiClient } from "../helpers/openai-client.js";
import { openTestStore } from "../helpers/store.js";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const REDIS_URL = "redis://127.0.0.1:6379";
/** Whole-suite cleanups: each test's replicas and stores, in order, after all. */
const shared: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of shared) await c();
});

/** Two replicas of the app on one PostgreSQL database, each with its own connections to the one Redis. */
async function replicasSharingRedis(limits: Record<string, string>): Promise<[FastifyInstance, FastifyInstance]> {
  const store = await openTestStore("postgres");
  shared.push(() => store.drop());
  const replica = async () => {
    const config = loadConfig({
      DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-rl-")),
      JWT_SECRET: "s".repeat(64),
      LOG_LEVEL: "silent",
      REDIS_URL,
      ...limits,
    });
    const db = await openStore({ databaseUrl: store.url });
    const app = await buildApp({ config, db, logger: false });
    await app.ready();
    shared.unshift(async () => {
      await app.close();
      await db.close();
    });
    return app;
  };
  return [await replica(), await replica()];
}
const models = (t: { app: TestApp["app"] }, secret: string) =>
  t.app.inject({ url: "/v1/models", headers: { authorization: `Bearer ${secret}` } });

describe("requests per minute per API key", () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it("within the limit every answer says the limit, what remains and when it resets; past it 429 with Retry-After", async () => {
    const t = await buildTestApp("pglite", { RATE_LIMIT_RPM: "3" });
    cleanups.push(() => t.close());
    const { secret } = await t.createKey();
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await models(t, secret));
    expect(answers.slice(0, 3).map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(answers.slice(0, 3).map((r) => r.headers["x-ratelimit-remaining-requests"])).toEqual(["2", "1", "0"]);
    expect(answers[0].headers["x-ratelimit-limit-requests"]).toBe("3");
    expect(answers[0].headers["x-ratelimit-reset-requests"]).toMatch(/^(\d+s|1m0s|\d+ms)$/);
    const refused = answers[3];
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error).toMatchObject({ type: "rate_limit_error", code: "rate_limit_exceeded", param: null });
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(Number(refused.headers["retry-after"])).toBeLessThanOrEqual(60);
    // Another key has its own count.
    expect((await models(t, (await t.createKey()).secret)).statusCode).toBe(200);
  });

  it("a key's own limit wins over the default; without either, no limit and no headers", async () => {
    const t = await buildTestApp("pglite", {});
    cleanups.push(() => t.close());
    const owner = { authorization: `Bearer ${await t.memberToken("owner")}` };
    const created = await t.app.inject({
      method: "POST",
      url: "/v1/organization/projects/default/api_keys",
      headers: owner,
      payload: { name: "limited", rate_limits: { rpm: 1 } },
    });
    expect(created.json().rate_limits).toEqual({ rpm: 1, tpm: null });
    expect((await models(t, created.json().secret)).statusCode).toBe(200);
    expect((await models(t, created.json().secret)).statusCode).toBe(429);
    const free = (await t.createKey()).secret;
    const res = await models(t, free);
    expect(res.headers["x-ratelimit-limit-requests"]).toBeUndefined();
    const unknown = await t.app.inject({
      method: "POST",
      url: "/v1/organization/projects/default/api_keys",
      headers: owner,
      payload: { name: "x", rate_limits: { rpd: 5 } },
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.param).toBe("rate_limits.rpd");
  });

  it("two replicas sharing Redis share one count, and the official client sees a RateLimitError", async () => {
    const [a, b] = await replicasSharingRedis({ RATE_LIMIT_RPM: "4" });
    // A fresh key each run: its count starts at zero whatever an earlier run left in Redis.
    const { secret } = await a.apiKeys.create({
      projectId: "p-" + randomBytes(4).toString("hex"),
      name: "shared",
      createdBy: "t",
    });
    const statuses = [];
    for (const app of [a, b, a, b]) statuses.push((await models({ app }, secret)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 200]);
    const client = openaiClient(await listen(b), secret);
    const err = await client.models.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(Number((err as InstanceType<typeof OpenAI.RateLimitError>).headers?.get("retry-after"))).toBeGreaterThan(0);
  });

  it("counts requests in this replica when Redis is unreachable: answered, and still limited", async () => {
    const t = await buildTestApp("pglite", { RATE_LIMIT_RPM: "1", REDIS_URL: "redis://127.0.0.1:9" });
    cleanups.push(() => t.close());
    const { secret } = await t.createKey();
    expect([(await models(t, secret)).statusCode, (await models(t, secret)).statusCode]).toEqual([200, 429]);
  });

  it("writes reset durations the way OpenAI does", () => {
    expect([
      resetDuration(250),
      resetDuration(1000),
      resetDuration(59_001),
      resetDuration(60_000),
      resetDuration(61_500),
    ]).toEqual(["250ms", "1s", "1m0s", "1m0s", "1m2s"]);
  });
});

describe("tokens per minute per API key", () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });
  const SYNTHETIC = "agentport/synthetic-20";
  const chat = (app: TestApp["app"], secret: string) =>
    app.inject({
      method: "POST",
      url: "/v1/chat/completions",
      headers: { authorization: `Bearer ${secret}` },
      payload: { model: SYNTHETIC, messages: [{ role: "user", content: "Hello" }] },
    });

  it("says the limit, what remains and when it resets; once the minute's tokens are spent, 429 with Retry-After", async () => {
    const t = await buildTestApp("pglite", { RATE_LIMIT_TPM: "60" });
    cleanups.push(() => t.close());
    const { secret } = await t.createKey();
    const first = await chat(t.app, secret);
    expect(first.statusCode).toBe(200);
    // Remaining after this request's reservation: "Hello" is 2 tokens by its characters and 8 of the chat
    // format's framing (3, and 5 a message), plus the agent's 20.
    expect(first.headers).toMatchObject({ "x-ratelimit-limit-tokens": "60", "x-ratelimit-remaining-tokens": "30" });
    const spent = first.json().usage.total_tokens; // 8 prompt + 20 completion, settled at the end
    expect(spent).toBe(28);
    const second = await chat(t.app, secret);
    expect(second.headers["x-ratelimit-remaining-tokens"]).toBe(String(60 - spent - 30));
    expect(second.headers["x-ratelimit-reset-tokens"]).toMatch(/^(\d+s|1m0s|\d+ms)$/);
    const third = await chat(t.app, secret); // 56 used: still under, so it runs (reserving 30) and overshoots
    expect(third.statusCode).toBe(200);
    const refused = await chat(t.app, secret);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers["x-ratelimit-remaining-tokens"]).toBe("0");
    expect(refused.json().error).toMatchObject({ type: "rate_limit_error", code: "rate_limit_exceeded" });
    expect(refused.json().error.message).toContain("tokens: 60 per minute");
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(Number(refused.headers["retry-after"])).toBeLessThanOrEqual(60);
    // Tokens are spent by completions only: the key still lists models, and another key is untouched.
    expect((await models(t, secret)).statusCode).toBe(200);
    expect((await chat(t.app, (await t.createKey()).secret)).statusCode).toBe(200);
  });

  it("a key's own tokens-per-minute wins over the default, and shows in the key list", async () => {
    const t = await buildTestApp("pglite", {});
    cleanups.push(() => t.close());
    const owner = { authorization: `Bearer ${await t.memberToken("owner")}` };
    const created = await t.app.inject({
      method: "POST",
      url: "/v1/organization/projects/default/api_keys",
      headers: owner,
      payload: { name: "tpm", rate_limits: { tpm: 10 } },
    });
    expect(created.json().rate_limits).toEqual({ rpm: null, tpm: 10 });
    const listed = await t.app.inject({ url: "/v1/organization/projects/default/api_keys", headers: owner });
    expect(listed.json().data.find((k: { id: string }) => k.id === created.json().id).rate_limits).toEqual({
      rpm: null,
      tpm: 10,
    });
    expect((await chat(t.app, created.json().secret)).statusCode).toBe(200);
    expect((await chat(t.app, created.json().secret)).statusCode).toBe(429);
    const free = await chat(t.app, (await t.createKey()).secret);
    expect(free.statusCode).toBe(200);
    expect(free.headers["x-ratelimit-limit-tokens"]).toBeUndefined();
  });

  it("two replicas sharing Redis share one token count; the official client sees a RateLimitError", async () => {
    const [a, b] = await replicasSharingRedis({ RATE_LIMIT_TPM: "50" });
    const { secret } = await a.apiKeys.create({
      projectId: "p-" + randomBytes(4).toString("hex"),
      name: "shared",
      createdBy: "t",
    });
    expect((await chat(a, secret)).statusCode).toBe(200); // 30 reserved, settled to 28, of 50
    const onB = await chat(b, secret);
    // b sees a's tokens: 30 (a's reservation, or 28 once settled) + its own 30.
    expect(Number(onB.headers["x-ratelimit-remaining-tokens"])).toBeLessThanOrEqual(6);
    // The spend is written without waiting for Redis; give it a bounded moment to land.
    for (let i = 0; i < 50 && (await chat(a, secret)).statusCode !== 429; i++)
      await new Promise((r) => setTimeout(r, 20));
    const client = openaiClient(await listen(b), secret);
    const err = await client.chat.completions
      .create({ model: SYNTHETIC, messages: [{ role: "user", content: "Hello" }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
  });

  it("counts tokens in this replica when Redis is unreachable: answered, and still limited", async () => {
    // 20: room for one request (its prompt is 10, it spends 28), not for a second; a prompt larger than the
    // whole limit would be refused up front instead, on any replica.
    const t = await buildTestApp("pglite", { RATE_LIMIT_TPM: "20", REDIS_URL: "redis://127.0.0.1:9" });
    cleanups.push(() => t.close());
    const { secret } = await t.createKey();
    expect([(await chat(t.app, secret)).statusCode, (await chat(t.app, secret)).statusCode]).toEqual([200, 429]);
  });
});
