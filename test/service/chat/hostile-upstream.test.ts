/**
 * An upstream that answers badly or hostilely (huge, malformed, lying about usage, echoing our key)
 * never reaches the client as our own 500, a leaked key, or a wedged meter. Through the official
 * client, against a scripted upstream, on the real PostgreSQL server.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_ANSWER_BYTES } from "../../../service/src/domain/agents/llm-agent.js";
import { agentsFileOf, buildTestApp, type TestApp } from "../../helpers/app.js";
import { listen } from "../../helpers/openai-client.js";

const KEY = "upstream-key-7f3a9c1e5b";
const head = { id: "chatcmpl-up", object: "chat.completion", created: 1, model: "up" };
const message = (content: string) => ({ index: 0, message: { role: "assistant", content }, finish_reason: "stop" });
const sse = (...events: object[]) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("") + "data: [DONE]\n\n";

/** What the scripted upstream answers, by the upstream model an agent asks for. */
const scripts: Record<string, { status?: number; type?: string; body: string | (() => AsyncGenerator<string>) }> = {
  "null-usage": {
    body: JSON.stringify({ ...head, choices: [message("fine")], usage: { prompt_tokens: 4, completion_tokens: null } }),
  },
  "bad-usage": {
    body: JSON.stringify({
      ...head,
      choices: [message("fine")],
      usage: { prompt_tokens: -2, completion_tokens: 1e300 },
    }),
  },
  "dup-head": {
    body: `{"id":"x","object":"chat.completion","created":1,"model":"up","choices":[${JSON.stringify(message("hi"))}],"model":"theirs","id":"chatcmpl-theirs"}`,
  },
  "null-choice": { body: JSON.stringify({ ...head, choices: [null] }) },
  "echo-key": {
    status: 400,
    body: JSON.stringify({
      error: {
        message: `bad request; headers were {"authorization":"Bearer ${KEY}"} key ${KEY}`,
        param: `x ${KEY}`,
        code: "invalid_value",
      },
    }),
  },
  "stream-bad-choices": {
    type: "text/event-stream",
    body: sse({ ...head, object: "chat.completion.chunk", choices: 5 }),
  },
  huge: {
    body: async function* () {
      yield `{"id":"x","object":"chat.completion","created":1,"model":"up","choices":[{"index":0,"message":{"content":"`;
      const piece = "a".repeat(1024 * 1024);
      for (let i = 0; i < 200; i++) yield piece;
      yield `"}}]}`;
    },
  },
};

describe("a hostile upstream", () => {
  let t: TestApp;
  let client: OpenAI;
  let upstream: Server;
  let hugeAborted: Promise<void>;
  const logLines: string[] = [];

  beforeAll(async () => {
    let markAborted!: () => void;
    hugeAborted = new Promise((r) => (markAborted = r));
    // A failure inside the handler fails the test as vitest reports an unhandled rejection.
    // eslint-disable-next-line @typescript-eslint/no-misused-promises
    upstream = createServer(async (req, res) => {
      let raw = "";
      for await (const part of req) raw += part;
      const script = scripts[(JSON.parse(raw) as { model: string }).model];
      res.writeHead(script.status ?? 200, { "content-type": script.type ?? "application/json" });
      if (typeof script.body === "string") return void res.end(script.body);
      res.on("close", () => !res.writableFinished && markAborted());
      for await (const piece of script.body()) {
        if (res.destroyed) return;
        await new Promise((written) => res.write(piece, written));
      }
      res.end();
    });
    upstream.listen(0, "127.0.0.1");
    await once(upstream, "listening");
    const agents = Object.keys(scripts).map((model) => ({ id: model, kind: "llm", model }));
    const sink = new Writable({ write: (chunk, _enc, done) => (logLines.push(String(chunk)), done()) });
    t = await buildTestApp(
      "postgres",
      {
        AGENTS_FILE: agentsFileOf(agents),
        LLM_BASE_URL: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`,
        LLM_API_KEY: KEY,
      },
      { logger: { level: "debug", stream: sink } },
    );
    client = new OpenAI({
      baseURL: await listen(t.app),
      apiKey: (await t.createKey()).secret,
      maxRetries: 0,
      timeout: 30_000,
    });
  });
  afterAll(async () => {
    await t?.close();
    upstream?.closeAllConnections();
    upstream?.close();
  });

  const ask = (model: string) =>
    client.chat.completions.create({ model: `agentport/${model}`, messages: [{ role: "user", content: "hi" }] });
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error("expected a failure");
      },
      (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
    );

  it("usage the upstream reports as null, negative or absurd is counted here instead, and the meter keeps writing", async () => {
    // The answer is relayed as the upstream wrote it; what is metered is counted here.
    for (const model of ["null-usage", "bad-usage"]) expect((await ask(model)).choices[0].message.content).toBe("fine");
    await t.app.usage.flush();
    // A later, ordinary write still lands: the meter was not wedged.
    await ask("null-usage");
    await t.app.usage.flush();
    const { rows } = await t.store.db.query<{
      model: string;
      requests: string;
      input_tokens: string;
      output_tokens: string;
    }>("SELECT model, requests::text, input_tokens::text, output_tokens::text FROM usage_minutes ORDER BY model");
    const metered = rows.map((r) => [r.model, Number(r.requests), Number(r.input_tokens), Number(r.output_tokens)]);
    // "fine" is one token; the prompt ("hi" with the chat framing) is counted when the upstream's is not believable.
    expect(metered).toEqual([
      ["agentport/bad-usage", 1, expect.any(Number), 1],
      ["agentport/null-usage", 2, 8, 2],
    ]);
    expect(metered[0][2]).toBeGreaterThan(0);
    expect(metered[0][2]).toBeLessThan(100);
  });

  it("a later id or model in the upstream's answer never overrides ours", async () => {
    const answer = await ask("dup-head");
    expect(answer.model).toBe("agentport/dup-head");
    expect(answer.id).not.toBe("chatcmpl-theirs");
    expect(answer.choices[0].message.content).toBe("hi");
  });

  it("choices: [null] is a 502 upstream_error saying so, not our own 500", async () => {
    const err = await failure(ask("null-choice"));
    expect(err.status).toBe(502);
    expect(err.code).toBe("upstream_error");
    expect(err.message).toContain("not an object");
  });

  it("a stream whose choices is not an array is an upstream_error saying so, not 'could not reach it'", async () => {
    const err = await failure(
      (async () => {
        const stream = await client.chat.completions.create({
          model: "agentport/stream-bad-choices",
          messages: [{ role: "user", content: "hi" }],
          stream: true,
        });
        for await (const _ of stream);
      })(),
    );
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.message).toContain("not an array");
    expect(err.message).not.toContain("could not reach");
  });

  it("an upstream 400 that echoes our key reaches neither the client nor the log", async () => {
    const err = await failure(ask("echo-key"));
    expect(err.status).toBe(400);
    expect(err.message).toContain("bad request");
    expect(JSON.stringify({ message: err.message, param: err.param, error: err.error })).not.toContain(KEY);
    expect(logLines.join("")).toContain("upstream refused the request");
    expect(logLines.join("")).not.toContain(KEY);
  });

  it(`a JSON answer over ${MAX_ANSWER_BYTES} bytes is an upstream_error, and the upstream request is dropped`, async () => {
    const err = await failure(ask("huge"));
    expect(err.status).toBe(502);
    expect(err.code).toBe("upstream_error");
    expect(err.message).toContain(`over ${MAX_ANSWER_BYTES} bytes`);
    await hugeAborted;
  });
});
