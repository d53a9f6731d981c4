/** Chat completion request builders. */
import http from "k6/http";
import type { RefinedResponse, ResponseType } from "k6/http";
import sse from "k6/x/sse";
import { authHeaders, url } from "./env.ts";
import type { StreamEvent } from "./sse.ts";

/** Asks for the usage chunk: its token count is what tokens per second and inter-token latency divide by. */
export function chatBody(model: string, content: string): string {
  return JSON.stringify({
    model,
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: "user", content }],
  });
}

export interface ChatStream {
  status: number;
  error: string;
  startedAt: number;
  endedAt: number;
  events: StreamEvent[];
}

/**
 * A streaming chat completion read event by event as it arrives (xk6-sse): k6/http returns the
 * body only once it is complete, so its timings cannot tell the first token from the headers.
 */
export function openChatStream(body: string, name: string): ChatStream {
  const events: StreamEvent[] = [];
  let error = "";
  const startedAt = Date.now();
  const res = sse.open(
    url("/v1/chat/completions"),
    { method: "POST", body, headers: authHeaders(undefined, { "Content-Type": "application/json" }), tags: { name } },
    (client) => {
      client.on("event", (e) => {
        // An event without data is a comment (the heartbeat) or empty: not a chunk.
        events.push({ data: e.data, comment: e.data === "", at: Date.now() });
        if (e.data === "[DONE]") client.close();
      });
      client.on("error", (e) => {
        error ||= e.error();
      });
    },
  );
  return { status: res.status, error: res.error || error, startedAt, endedAt: Date.now(), events };
}

/** A chat body of exactly `bytes` bytes (ASCII padding), to probe the JSON limit. */
export function chatBodyOfSize(model: string, bytes: number): string {
  const pad = bytes - chatBody(model, "").length;
  if (pad < 0) throw new Error(`a chat body cannot be as small as ${bytes} bytes`);
  return chatBody(model, "a".repeat(pad));
}

export interface ChatParams {
  name: string;
  timeoutMs?: number;
  expected?: number[];
}

export function postChat(body: string, p: ChatParams): RefinedResponse<ResponseType | undefined> {
  return http.post(url("/v1/chat/completions"), body, {
    headers: authHeaders(undefined, { "Content-Type": "application/json", Accept: "text/event-stream" }),
    tags: { name: p.name },
    timeout: p.timeoutMs ?? 60_000,
    responseCallback: http.expectedStatuses(...(p.expected ?? [200])),
  });
}

/** True when a body is the OpenAI error envelope with all four fields. */
export function isErrorEnvelope(body: string | null | ArrayBuffer | undefined): boolean {
  if (typeof body !== "string") return false;
  try {
    const e = (JSON.parse(body) as { error?: Record<string, unknown> }).error;
    return !!e && typeof e.message === "string" && "type" in e && "param" in e && "code" in e;
  } catch {
    return false;
  }
}
