/**
 * A local OpenAI-compatible upstream for `llm` agent tests. The upstream model name picks the
 * behaviour: "echo" answers with the last user message, "tools" calls a tool, "fail" answers 500,
 * "break" streams two chunks then drops the connection, "hang" streams a role chunk then waits,
 * "status-<code>" answers that HTTP status with an OpenAI error body (and Retry-After: 7 for 429).
 * It records every request and whether the client aborted it.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface StubRequest {
  headers: IncomingMessage["headers"];
  body: {
    model: string;
    stream?: boolean;
    messages: Array<{ role: string; content: unknown }>;
    [key: string]: unknown;
  };
  /** Resolves when the client went away before the response ended. */
  aborted: Promise<void>;
  wasAborted: boolean;
}

export interface UpstreamStub {
  url: string;
  requests: StubRequest[];
  close(): Promise<void>;
}

const UPSTREAM_ID = "chatcmpl-upstream-id";

function chunk(model: string, delta: object, finish: string | null = null): string {
  return `data: ${JSON.stringify({ id: UPSTREAM_ID, object: "chat.completion.chunk", created: 1, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

function lastUser(body: StubRequest["body"]): string {
  const m = [...body.messages].reverse().find((x) => x.role === "user");
  return typeof m?.content === "string" ? m.content : "";
}

async function answer(req: StubRequest, res: ServerResponse): Promise<void> {
  const { model, stream } = req.body;
  const status = /^status-(\d{3})$/.exec(model);
  if (status) {
    const code = Number(status[1]);
    res.writeHead(code, { "content-type": "application/json", ...(code === 429 ? { "retry-after": "7" } : {}) });
    res.end(JSON.stringify({ error: { message: `upstream says ${code}`, type: "invalid_request_error", param: code === 400 ? "temperature" : null, code: code === 400 ? "invalid_value" : null } }));
    return;
  }
  if (model === "fail") {
    res.writeHead(500, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: "Incorrect API key provided: sk-upstream-secret", type: "server_error", code: "boom" } }));
    return;
  }
  const text = `echo: ${lastUser(req.body)}`;
  // "hang" never answers a JSON request, and streams only its role chunk.
  if (model === "hang" && !stream) return;
  const toolCall = { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } };
  if (!stream) {
    const message = model === "tools" ? { role: "assistant", content: null, tool_calls: [toolCall] } : { role: "assistant", content: text };
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: UPSTREAM_ID,
        object: "chat.completion",
        created: 1,
        model,
        choices: [{ index: 0, message, finish_reason: model === "tools" ? "tool_calls" : "stop" }],
        usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
      }),
    );
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.write(chunk(model, { role: "assistant", content: "" }));
  if (model === "hang") return;
  if (model === "tools") {
    res.write(chunk(model, { tool_calls: [{ index: 0, ...toolCall, function: { name: "get_weather", arguments: "" } }] }));
    res.write(chunk(model, { tool_calls: [{ index: 0, function: { arguments: '{"city":"Paris"}' } }] }));
    res.write(chunk(model, {}, "tool_calls"));
  } else {
    // Split across writes, and one event split mid-line, as real networks do. "paced" waits
    // between deltas, as a model generating tokens does, so each arrives in a read of its own.
    const words = text.split(/(?= )/);
    for (const w of words) {
      if (model === "paced") await new Promise((r) => setTimeout(r, 20));
      res.write(chunk(model, { content: w }));
    }
    if (model === "break") {
      // Cut the connection once the deltas are out, mid-response.
      res.write("", () => res.socket?.destroy());
      return;
    }
    const last = chunk(model, {}, "stop");
    res.write(last.slice(0, 20));
    res.write(last.slice(20));
  }
  res.write(`data: ${JSON.stringify({ id: UPSTREAM_ID, object: "chat.completion.chunk", created: 1, model, choices: [], usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } })}\n\n`);
  res.end("data: [DONE]\n\n");
}

export async function startUpstreamStub(): Promise<UpstreamStub> {
  const requests: StubRequest[] = [];
  const server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const p of req) parts.push(p as Buffer);
    let markAborted!: () => void;
    const record: StubRequest = {
      headers: req.headers,
      body: JSON.parse(Buffer.concat(parts).toString("utf8")),
      aborted: new Promise<void>((resolve) => (markAborted = resolve)),
      wasAborted: false,
    };
    requests.push(record);
    res.on("close", () => {
      if (!res.writableFinished) {
        record.wasAborted = true;
        markAborted();
      }
    });
    await answer(record, res);
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
