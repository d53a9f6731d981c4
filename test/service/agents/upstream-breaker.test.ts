/**
 * An upstream that dies and comes back, against the real app on the PostgreSQL server: its
 * breaker opens after UPSTREAM_BREAKER_FAILURES failures, requests during the cooldown go straight
 * to the fallback without a call to it, the half-open probe finds it back and closes the breaker;
 * /metrics, /health/ready and the log say each step. With no fallback left, 503 at once. A
 * retry budget bounds retries of an upstream that keeps failing.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { agentsFileOf, buildTestApp, type TestApp } from "../../helpers/app.js";
import { scrape } from "../../helpers/metrics.js";
import { listen } from "../../helpers/openai-client.js";
import { startUpstreamStub, type UpstreamStub } from "../../helpers/upstream-stub.js";

/** An OpenAI-compatible upstream that can die (503 to every call) and come back (answers). */
async function mortalUpstream() {
  const state = { alive: true, calls: 0 };
  const server: Server = createServer((req, res) => {
    state.calls++;
    req.resume();
    req.on("end", () => {
      if (!state.alive) {
        res.writeHead(503, { "content-type": "application/json" });
        return res.end(JSON.stringify({ error: { message: "down", type: "server_error", code: null, param: null } }));
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: "chatcmpl-mortal",
          object: "chat.completion",
          created: 1,
          model: "m",
          choices: [{ index: 0, message: { role: "assistant", content: "primary is back" }, finish_reason: "stop" }],
          usage: { prompt_tokens: 1, completion_tokens: 3, total_tokens: 4 },
        }),
      );
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { state, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

describe("per-upstream circuit breaker", () => {
  let t: TestApp;
  let backup: UpstreamStub;
  let primary: Awaited<ReturnType<typeof mortalUpstream>>;
  let base: string;
  let secret: string;
  let otherSecret: string;
  const lines: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    backup = await startUpstreamStub();
    primary = await mortalUpstream();
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    const fast = { attempts: 2, backoff_ms: 1, max_backoff_ms: 5 };
    t = await buildTestApp(
      "postgres",
      {
        AGENTS_FILE: agentsFileOf([
          { id: "primary", kind: "llm", model: "m", base_url: primary.url, retries: fast, fallbacks: ["backup"] },
          // Project "other" may not use the fallback: for it, primary is the only upstream.
          { id: "backup", kind: "llm", model: "echo", projects: ["default"] },
        ]),
        LLM_BASE_URL: backup.url,
        UPSTREAM_BREAKER_FAILURES: "3",
        UPSTREAM_BREAKER_WINDOW_SECONDS: "60",
        UPSTREAM_BREAKER_COOLDOWN_SECONDS: "1.5",
      },
      { logger: { level: "info", stream: sink } },
    );
    base = (await listen(t.app)).replace(/\/v1$/, "");
    secret = (await t.createKey()).secret;
    otherSecret = (await t.createKey("other")).secret;
  });
  afterAll(async () => {
    await t.close();
    await backup.close();
    primary.close();
  });

  const ask = async (model: string, key = secret) => {
    const res = await fetch(`${base}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: `agentport/${model}`, messages: [{ role: "user", content: "hi" }] }),
      signal: AbortSignal.timeout(20_000),
    });
    return { status: res.status, headers: res.headers, json: await res.json() };
  };
  const ready = async () => await (await fetch(`${base}/health/ready`)).json();

  it("dies: opens after 3 failures, skips it during the cooldown, probes it half-open and closes", async () => {
    primary.state.alive = false;
    // 1st request: two tries fail (failures 1, 2), the fallback answers.
    expect((await ask("primary")).json.choices[0].message.content).toBe("echo: hi");
    expect(primary.state.calls).toBe(2);
    // 2nd: its first try is the 3rd failure: the breaker opens, no retry, the fallback answers.
    expect((await ask("primary")).json.choices[0].message.content).toBe("echo: hi");
    expect(primary.state.calls).toBe(3);
    expect((await ready()).upstreams.primary).toBe("open");
    // During the cooldown: straight to the fallback, no attempt on the dead upstream.
    for (let i = 0; i < 4; i++) expect((await ask("primary")).json.choices[0].message.content).toBe("echo: hi");
    expect(primary.state.calls).toBe(3);
    // No fallback left: 503 at once, with when to come back, and still no call.
    const alone = await ask("primary", otherSecret);
    expect(alone.status).toBe(503);
    expect(alone.json.error.code).toBe("upstream_unavailable");
    expect(Number(alone.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(primary.state.calls).toBe(3);

    let m = await scrape(base);
    expect(m.value("agentport_upstream_circuit_state", { agent: "primary", state: "open" })).toBe(1);
    expect(m.value("agentport_upstream_skipped_total", { agent: "primary" })).toBe(5);
    expect(backup.requests.filter((r) => r.body.model === "echo")).toHaveLength(6);
    expect(m.value("agentport_upstream_circuit_transitions_total", { agent: "primary", to: "open" })).toBe(1);
    expect((await ready()).status).toBe("degraded");

    // Comes back; once the cooldown is over, the next request is the probe and it closes the breaker.
    primary.state.alive = true;
    await vi.waitFor(async () => expect((await ready()).upstreams.primary).toBe("half_open"), {
      timeout: 10_000,
      interval: 100,
    });
    expect((await ask("primary")).json.choices[0].message.content).toBe("primary is back");
    expect(primary.state.calls).toBe(4);
    expect((await ready()).upstreams.primary).toBe("closed");
    m = await scrape(base);
    expect(m.value("agentport_upstream_circuit_state", { agent: "primary", state: "closed" })).toBe(1);
    expect(m.value("agentport_upstream_circuit_transitions_total", { agent: "primary", to: "half_open" })).toBe(1);
    expect(m.value("agentport_upstream_circuit_transitions_total", { agent: "primary", to: "closed" })).toBe(1);

    const said = (msg: string) => lines.filter((l) => l.msg === msg && l.agent === "primary");
    expect(said("upstream call retried")).toEqual([expect.objectContaining({ attempt: 1, reason: "503" })]);
    expect(said("upstream circuit opened: calls skip it for the cooldown")).toHaveLength(1);
    expect(said("upstream skipped: its circuit is open")).toHaveLength(5);
    expect(said("upstream circuit half-open: one probe call goes through")).toHaveLength(1);
    expect(said("upstream circuit closed: the probe succeeded")).toHaveLength(1);
  }, 60_000);
});

describe("retry budget", () => {
  let t: TestApp;
  let stub: UpstreamStub;
  let base: string;
  let secret: string;
  beforeAll(async () => {
    stub = await startUpstreamStub();
    t = await buildTestApp("postgres", {
      AGENTS_FILE: agentsFileOf([
        { id: "down", kind: "llm", model: "status-500", retries: { attempts: 3, backoff_ms: 1, max_backoff_ms: 5 } },
      ]),
      LLM_BASE_URL: stub.url,
      UPSTREAM_BREAKER_FAILURES: "0",
      UPSTREAM_RETRY_BUDGET_PERCENT: "20",
      UPSTREAM_RETRY_BUDGET_MIN: "1",
    });
    base = await listen(t.app);
    secret = (await t.createKey()).secret;
  });
  afterAll(async () => {
    await t.close();
    await stub.close();
  });

  it("5 requests on a failing upstream make 7 calls, not 15: retries stay within 1 plus 20% of calls", async () => {
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${base}/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "agentport/down", messages: [{ role: "user", content: `r${i}` }] }),
        signal: AbortSignal.timeout(20_000),
      });
      expect(res.status).toBe(502);
    }
    // 5 first tries; retries: 1 (the minimum) + floor(20% of 5) = 2.
    expect(stub.requests).toHaveLength(7);
    const m = await scrape(base.replace(/\/v1$/, ""));
    // Each request's retry past the budget was not made: the 2nd try of requests 1 and 5, the only one of 2–4.
    expect(m.value("agentport_upstream_retries_denied_total", { agent: "down" })).toBe(5);
  }, 60_000);
});
