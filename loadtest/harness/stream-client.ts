/**
 * One streaming chat completion with our own clock on every body event: TTFT, gaps between
 * events, how and when the stream ended. A cut connection is an outcome, not an exception.
 */
import type { Http } from "./http.js";
import { SseEvents, type SseEvent } from "./sse-events.js";
import { interTokenGaps, tokensPerChunk } from "./stream-tokens.js";
import { validateStream, type StreamExpectation, type StreamReport } from "./stream-validator.js";

export interface StreamRequest {
  baseUrl: string;
  key: string;
  model: string;
  content: string;
  /** Sent as `max_tokens`. */
  maxTokens?: number;
  /** A prepared request body (exact sizes); otherwise built from `model` and `content`. */
  body?: string;
  timeoutMs: number;
  expect?: StreamExpectation;
}

export interface StreamOutcome {
  status: number;
  startedAt: number;
  endedAt: number;
  /** Transport end: "end" (clean), "error" (reset, closed mid-body) or "timeout" (our bound). */
  ended: "end" | "error" | "timeout";
  error?: string;
  events: SseEvent[];
  report: StreamReport;
  /** Non-SSE body (an error response). */
  errorBody?: string;
  ttftMs?: number;
  e2eMs: number;
  /** Output tokens: the usage chunk's count, else one per content chunk. */
  outputTokens: number;
  /** Gaps between tokens, ms (see stream-tokens.ts: per token, not per chunk). */
  interTokenMs: number[];
  /** Longest silence between two received bytes of the body (heartbeats count), ms. */
  longestGapMs: number;
  /** Time of the last byte received. */
  lastByteAt: number;
}

/** Asks for the usage chunk: its token count is what tokens per second and inter-token latency divide by. */
export function chatBody(model: string, content: string, maxTokens?: number): string {
  return JSON.stringify({
    model,
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: "user", content }],
    ...(maxTokens ? { max_tokens: maxTokens } : {}),
  });
}

/** A streaming chat request body of exactly `bytes` bytes (ASCII padding in the message). */
export function chatBodyOfSize(model: string, bytes: number): string {
  const pad = bytes - Buffer.byteLength(chatBody(model, ""));
  if (pad < 0) throw new Error(`a chat body cannot be as small as ${bytes} bytes`);
  return chatBody(model, "a".repeat(pad));
}

export async function streamChat(http: Http, req: StreamRequest): Promise<StreamOutcome> {
  const startedAt = performance.now();
  const parser = new SseEvents();
  const events: SseEvent[] = [];
  let status = 0;
  let ended: StreamOutcome["ended"] = "end";
  let error: string | undefined;
  let errorBody: string | undefined;
  let lastByteAt = startedAt;
  let longestGapMs = 0;
  try {
    const res = await http.send(`${req.baseUrl}/v1/chat/completions`, {
      method: "POST",
      key: req.key,
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: req.body ?? chatBody(req.model, req.content, req.maxTokens),
      timeoutMs: req.timeoutMs,
    });
    status = res.status;
    lastByteAt = performance.now();
    if (status !== 200) {
      errorBody = await res.body.text();
    } else {
      for await (const chunk of res.body) {
        const now = performance.now();
        longestGapMs = Math.max(longestGapMs, now - lastByteAt);
        lastByteAt = now;
        events.push(...parser.push(chunk as Buffer, now));
      }
    }
  } catch (err) {
    const e = err as Error & { code?: string; name?: string };
    ended = e.name === "TimeoutError" || e.name === "AbortError" ? "timeout" : "error";
    error = e.code ?? e.message;
  }
  const endedAt = performance.now();
  const report = validateStream(events, req.expect);
  if (status !== 200) report.errors.unshift(`status ${status}${error ? ` (${error})` : ""}`);
  if (ended !== "end") report.errors.push(`stream ${ended}: ${error}`);
  report.ok = report.errors.length === 0;
  const times = report.contentTimes;
  const tokens = tokensPerChunk(report.contentChars, report.completionTokens);
  return {
    status,
    startedAt,
    endedAt,
    ended,
    error,
    events,
    report,
    errorBody,
    ttftMs: times.length ? times[0] - startedAt : undefined,
    e2eMs: (report.doneAt ?? endedAt) - startedAt,
    outputTokens: tokens.reduce((a, b) => a + b, 0),
    interTokenMs: interTokenGaps(times, tokens),
    longestGapMs,
    lastByteAt,
  };
}
