/**
 * A local OpenAI-compatible upstream for `llm` agent tests, answering in the shape OpenAI's current
 * API does (system_fingerprint, service_tier, per-choice logprobs). The upstream model name picks the
 * behaviour: "echo" answers with the last user message (`n` choices, with log probabilities when
 * asked), "tools" calls a tool, "refuse" refuses, "fail" answers 500,
 * "break" streams two chunks then drops the connection, "garble" answers JSON cut short (streamed:
 * its deltas, then a chunk that is not JSON, then the rest), "overload" streams its deltas, then
 * an error chunk as OpenAI sends one mid-stream, then the rest, "flood" streams its deltas, then
 * one event that never ends (64 KiB writes, up to 64 MiB, until the client leaves), "hang" streams a role chunk then waits,
 * "silent" sends a stream's headers and nothing more until the client leaves,
 * "status-<code>" answers that HTTP status with an OpenAI error body (and Retry-After: 7 for 429),
 * "once-<code>" answers that status (Retry-After: 1 for 429) the first time it is sent a given
 * last user message, then echoes; "slow-503" waits 600 ms, then answers 503; "agentic" calls the tool
 * as "tools" does until the conversation ends with the tool's result, then echoes "the tool said <result>".
 * `/embeddings` requests are answered by embeddings-stub.ts, `/responses` by responses-stub.ts, the
 * legacy `/completions` by completions-stub.ts.
 * It records every request, what it answered, and whether the client aborted it.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { answerEmbeddings } from "./embeddings-stub.js";
import { answerResponses } from "./responses-stub.js";
import { answerTextCompletions } from "./completions-stub.js";

export interface StubRequest {
  headers: IncomingMessage["headers"];
  body: {
    model: string;
    stream?: boolean;
    messages: Array<{ role: string; content: unknown }>;
    [key: string]: unknown;
  };
  /** The response body as written (JSON, or the SSE text). */
  answer: string;
  /** Resolves when the client went away before the response ended. */
  aborted: Promise<void>;
  wasAborted: boolean;
  /** When it arrived (ms since the epoch). */
  at: number;
}

export interface UpstreamStub {
  url: string;
  requests: StubRequest[];
  close(): Promise<void>;
}

const UPSTREAM_ID = "chatcmpl-upstream-id";
export const STUB_FINGERPRINT = "fp_stub_1";
const head = (model: string, object: string) => ({
  id: UPSTREAM_ID,
  object,
  created: 1,
  model,
  service_tier: "default",
  system_fingerprint: STUB_FINGERPRINT,
});

function chunk(
  model: string,
  delta: object,
  finish: string | null = null,
  index = 0,
  logprobs: object | null = null,
): string {
  return `data: ${JSON.stringify({ ...head(model, "chat.completion.chunk"), choices: [{ index, delta, logprobs, finish_reason: finish }], usage: null })}\n\n`;
}

/** OpenAI's per-token log probabilities, with `top` alternatives each. */
function logprobsOf(tokens: string[], top: number): object {
  const entry = (token: string, logprob: number) => ({ token, logprob, bytes: [...Buffer.from(token)] });
  return {
    content: tokens.map((t, i) => ({
      ...entry(t, -0.25 * (i + 1)),
      top_logprobs: Array.from({ length: top }, (_, k) => entry(`${t}~${k}`, -1 - k)),
    })),
    refusal: null,
  };
}

const REFUSAL = "I can't help with that.";

function lastUser(body: StubRequest["body"]): string {
  const m = [...body.messages].reverse().find((x) => x.role === "user");
  return typeof m?.content === "string" ? m.content : "";
}

/** "once-<code>" models' conversations already failed once. */
const failedOnce = new Set<string>();

/** The HTTP status a "status-", "once-" or "slow-" model fails with now, and its Retry-After. */
async function failure(req: StubRequest): Promise<{ code: number; retryAfter?: string } | undefined> {
  const { model } = req.body;
  const status = /^status-(\d{3})$/.exec(model);
  if (status) return { code: Number(status[1]), retryAfter: status[1] === "429" ? "7" : undefined };
  const once = /^once-(\d{3})$/.exec(model);
  const key = `${model}\n${lastUser(req.body)}`;
  if (once && !failedOnce.has(key)) {
    failedOnce.add(key);
    return { code: Number(once[1]), retryAfter: once[1] === "429" ? "1" : undefined };
  }
  if (model === "slow-503") {
    await new Promise((r) => setTimeout(r, 600));
    return { code: 503 };
  }
  return undefined;
}

async function answer(req: StubRequest, res: ServerResponse): Promise<void> {
  const { model, stream } = req.body;
  const status = await failure(req);
  if (status) {
    const { code, retryAfter } = status;
    if (res.destroyed) return;
    res.writeHead(code, { "content-type": "application/json", ...(retryAfter ? { "retry-after": retryAfter } : {}) });
    res.end(
      JSON.stringify({
        error: {
          message: `upstream says ${code}`,
          type: "invalid_request_error",
          param: code === 400 ? "temperature" : null,
          code: code === 400 ? "invalid_value" : null,
        },
      }),
    );
    return;
  }
  if (model === "fail") {
    res.writeHead(500, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        error: { message: "Incorrect API key provided: sk-upstream-secret", type: "server_error", code: "boom" },
      }),
    );
    return;
  }
  // Choice 0 echoes; each further choice says which it is.
  const texts = Array.from(
    { length: Number(req.body.n ?? 1) },
    (_, i) => `echo${i ? ` ${i + 1}` : ""}: ${lastUser(req.body)}`,
  );
  const text = texts[0];
  const top = req.body.logprobs === true ? Number(req.body.top_logprobs ?? 0) : undefined;
  const words = (t: string) => t.split(/(?= )/);
  // "hang" never answers a JSON request, and streams only its role chunk.
  if (model === "hang" && !stream) return;
  const toolCall = { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } };
  const usage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };
  const garbled =
    '{"id":"chatcmpl-garbled","choices":[{"index":0,"message":{"content":"never shown"},"delta":{"content":"never shown"}}]';
  if (!stream) {
    if (model === "garble") {
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end(garbled);
    }
    const choices =
      model === "tools"
        ? [
            {
              index: 0,
              message: { role: "assistant", content: null, refusal: null, tool_calls: [toolCall] },
              logprobs: null,
              finish_reason: "tool_calls",
            },
          ]
        : model === "refuse"
          ? [
              {
                index: 0,
                message: { role: "assistant", content: null, refusal: REFUSAL },
                logprobs: null,
                finish_reason: "stop",
              },
            ]
          : texts.map((t, index) => ({
              index,
              message: { role: "assistant", content: t, refusal: null, annotations: [] },
              logprobs: top === undefined ? null : logprobsOf(words(t), top),
              finish_reason: "stop",
            }));
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ ...head(model, "chat.completion"), choices, usage }));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream" });
  if (model === "silent") return void res.flushHeaders();
  for (let i = 0; i < texts.length; i++)
    res.write(chunk(model, { role: "assistant", content: "", refusal: null }, null, i));
  if (model === "hang") return;
  if (model === "refuse") {
    for (const part of words(REFUSAL)) res.write(chunk(model, { refusal: part }));
    res.write(chunk(model, {}, "stop"));
  } else if (texts.length > 1) {
    // Several choices: their deltas interleave, one choice a chunk, as OpenAI sends them.
    const all = texts.map(words);
    for (let w = 0; w < Math.max(...all.map((x) => x.length)); w++) {
      all.forEach(
        (ws, i) =>
          ws[w] !== undefined &&
          res.write(chunk(model, { content: ws[w] }, null, i, top === undefined ? null : logprobsOf([ws[w]], top))),
      );
    }
    texts.forEach((_, i) => res.write(chunk(model, {}, "stop", i)));
  } else if (model === "tools") {
    res.write(
      chunk(model, { tool_calls: [{ index: 0, ...toolCall, function: { name: "get_weather", arguments: "" } }] }),
    );
    res.write(chunk(model, { tool_calls: [{ index: 0, function: { arguments: '{"city":"Paris"}' } }] }));
    res.write(chunk(model, {}, "tool_calls"));
  } else {
    // Split across writes, and one event split mid-line, as real networks do. "paced" waits
    // between deltas, as a model generating tokens does, so each arrives in a read of its own.
    for (const w of words(text)) {
      if (model === "paced") await new Promise((r) => setTimeout(r, 20));
      res.write(chunk(model, { content: w }, null, 0, top === undefined ? null : logprobsOf([w], top)));
    }
    if (model === "garble") res.write(`data: ${garbled}\n\n`);
    if (model === "flood") {
      const piece = "a".repeat(64 * 1024);
      res.write("data: ");
      for (let sent = 0; sent < 1024 && !res.destroyed; sent++)
        await new Promise((written) => res.write(piece, written));
      return void res.end();
    }
    if (model === "overload")
      res.write(
        `data: ${JSON.stringify({ error: { message: "The server had an error: sk-upstream-secret", type: "server_error", code: "server_overloaded" } })}\n\n`,
      );
    if (model === "break") {
      // Cut the connection once the deltas are out, mid-response.
      res.write("", () => res.socket?.destroy());
      return;
    }
    const last = chunk(model, {}, "stop");
    res.write(last.slice(0, 20));
    res.write(last.slice(20));
  }
  res.write(`data: ${JSON.stringify({ ...head(model, "chat.completion.chunk"), choices: [], usage })}\n\n`);
  res.end("data: [DONE]\n\n");
}

/** "agentic": the request as "tools" sees it until the last message is a tool's result, then as "echo" answering it. */
function agentic(req: StubRequest): StubRequest {
  if (req.body.model !== "agentic") return req;
  const last = req.body.messages.at(-1);
  if (last?.role !== "tool") return { ...req, body: { ...req.body, model: "tools" } };
  return {
    ...req,
    body: {
      ...req.body,
      model: "echo",
      messages: [...req.body.messages, { role: "user", content: `the tool said ${String(last.content)}` }],
    },
  };
}

export async function startUpstreamStub(): Promise<UpstreamStub> {
  const requests: StubRequest[] = [];
  // A failure inside the handler fails the test as vitest reports an unhandled rejection.
  // eslint-disable-next-line @typescript-eslint/no-misused-promises
  const server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const p of req) parts.push(p as Buffer);
    let markAborted!: () => void;
    const record: StubRequest = {
      headers: req.headers,
      body: JSON.parse(Buffer.concat(parts).toString("utf8")),
      aborted: new Promise<void>((resolve) => (markAborted = resolve)),
      answer: "",
      wasAborted: false,
      at: Date.now(),
    };
    // What the stub answered, exactly as it went out.
    const write = res.write.bind(res) as (chunk: string, cb?: () => void) => boolean;
    res.write = ((chunk: string, cb?: () => void) => {
      record.answer += chunk;
      return write(chunk, cb);
    }) as typeof res.write;
    const end = res.end.bind(res) as (chunk?: string) => ServerResponse;
    res.end = ((chunk?: string) => {
      if (typeof chunk === "string") record.answer += chunk;
      return end(chunk);
    }) as typeof res.end;
    requests.push(record);
    res.on("close", () => {
      if (!res.writableFinished) {
        record.wasAborted = true;
        markAborted();
      }
    });
    if (req.url?.endsWith("/embeddings") && !record.body.model.startsWith("status-"))
      return answerEmbeddings(record.body, res);
    if (req.url?.endsWith("/responses") && !record.body.model.startsWith("status-"))
      return answerResponses(record.body, res);
    if (req.url?.endsWith("/completions") && !req.url.endsWith("/chat/completions"))
      return answerTextCompletions(record.body, res);
    await answer(agentic(record), res);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}
