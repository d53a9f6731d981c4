/**
 * Tokens per minute on two replicas sharing PostgreSQL and Redis (issue 40, items 1, 2 and 10):
 * a run larger than the key's whole TPM is refused up front with the 429 OpenAI gives for it, and
 * never reaches the upstream; the estimate holds the window to the limit plus one request's true
 * size in every script, CJK included, with requests in parallel on both replicas. True sizes come
 * from the synthetic agent's usage, counted by the tokenizer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { openaiClient } from "../../helpers/openai-client.js";
import { startSpendReplicas, type SpendReplicas } from "../../helpers/spend-replicas.js";

let env: SpendReplicas;
beforeAll(async () => {
  env = await startSpendReplicas([
    { id: "syn", kind: "synthetic", tokens: 5 },
    { id: "gpt", kind: "llm", model: "echo" },
    { id: "embed", kind: "llm", model: "embed", embeddings: true },
  ]);
}, 60_000);
afterAll(async () => env?.close());

async function keyWithTpm(tpm: number): Promise<[OpenAI, OpenAI]> {
  const res = await fetch(`${env.replicas[0].baseURL}/organization/projects/default/api_keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${await env.ownerToken()}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "tpm", rate_limits: { tpm } }),
  });
  const { secret } = (await res.json()) as { secret: string };
  return [openaiClient(env.replicas[0].baseURL, secret), openaiClient(env.replicas[1].baseURL, secret)];
}

/** Seeded random text of `n` characters from [lo, hi). */
function randomText(lo: number, hi: number, n: number, seed: number): string {
  let s = seed;
  const next = () => (s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: n }, () => String.fromCodePoint(lo + Math.floor(next() * (hi - lo)))).join("");
}

describe("a run larger than the key's whole TPM", () => {
  it("is refused up front with OpenAI's 429 naming the limit, on either replica, and never reaches the upstream", async () => {
    const [a, b] = await keyWithTpm(1000);
    const upstreamBefore = env.stub.requests.length;
    const tokens = Array.from({ length: 1100 }, (_, i) => i % 50_000);
    for (const client of [a, b]) {
      const err = await client.embeddings
        .create({ model: "agentport/embed", input: [tokens] })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.RateLimitError);
      const { error } = err as InstanceType<typeof OpenAI.RateLimitError>;
      expect(error).toMatchObject({ type: "tokens", code: "rate_limit_exceeded" });
      expect((error as { message: string }).message).toContain("tokens per min (TPM): Limit 1000, Requested 1100");
    }
    expect(env.stub.requests.length).toBe(upstreamBefore);
    // The answer it asked for counts: max_tokens above the limit is too large too.
    const chat = await a.chat.completions
      .create({ model: "agentport/gpt", max_tokens: 1200, messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect((chat as { error?: { type?: string } }).error?.type).toBe("tokens");
    // Neither refusal spent the window: a run that fits runs.
    const ok = await b.embeddings.create({ model: "agentport/embed", input: [tokens.slice(0, 900)] });
    expect(ok.data).toHaveLength(1);
  }, 60_000);

  it("is judged by its true size: text the estimate finds too large but the tokenizer does not runs", async () => {
    const [a] = await keyWithTpm(1000);
    // 400 characters of ordinary Chinese: estimated at 3 a character (> 1000), ~0.7 a character in truth.
    const text = "我们今天去公园散步，天气很好，阳光明媚。".repeat(20);
    const answer = await a.chat.completions.create({
      model: "agentport/syn",
      max_tokens: 5,
      messages: [{ role: "user", content: text }],
    });
    expect(answer.usage!.prompt_tokens).toBeLessThan(1000);
    // A request without max_tokens is never refused for the default answer reservation alone.
    const [c] = await keyWithTpm(100);
    expect(
      (await c.chat.completions.create({ model: "agentport/syn", messages: [{ role: "user", content: "hi" }] })).usage,
    ).toBeDefined();
  }, 60_000);
});

describe("the window holds to the limit plus one request's true size, in parallel on two replicas", () => {
  const cases: Array<[string, (seed: number) => string]> = [
    ["random CJK", (seed) => randomText(0x4e00, 0xa000, 300, seed)],
    ["random Hangul", (seed) => randomText(0xac00, 0xd7a4, 300, seed)],
    ["Cyrillic", (seed) => randomText(0x430, 0x450, 600, seed)],
    ["English", (seed) => `Request ${seed}: ` + "the quick brown fox jumps over the lazy dog ".repeat(20)],
  ];
  for (const [script, textOf] of cases)
    it(`${script}: 20 parallel requests`, async () => {
      const limit = 3000;
      const [a, b] = await keyWithTpm(limit);
      const outcomes = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) =>
          [a, b][i % 2].chat.completions.create({
            model: "agentport/syn",
            max_tokens: 5,
            messages: [{ role: "user", content: textOf(i + 1) }],
          }),
        ),
      );
      const served = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value.usage!.total_tokens] : []));
      const refused = outcomes.filter((o) => o.status === "rejected");
      for (const r of refused) expect((r.reason as { code?: string }).code).toBe("rate_limit_exceeded");
      expect(served.length).toBeGreaterThan(0);
      expect(refused.length).toBeGreaterThan(0);
      const total = served.reduce((n, t) => n + t, 0);
      expect(total).toBeLessThanOrEqual(limit + Math.max(...served));
    }, 60_000);
});
