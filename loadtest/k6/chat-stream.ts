/**
 * Streaming chat under concurrency, checked and measured as the harness does: every response a
 * complete, valid chunk stream; TTFT at the first content event, inter-token latency per token,
 * output tokens per second per stream and in aggregate. Needs k6 built with xk6-sse (docs/load-testing.md).
 *   k6 run -e BASE_URL=https://api.example.com -e API_KEY=ap-… loadtest/k6/chat-stream.ts
 * STREAM_MODEL/STREAM_TOKENS pick the synthetic agent (default: the built-in synthetic-20).
 */
import { check } from "k6";
import type { Options } from "k6/options";
import { Counter, Rate, Trend } from "k6/metrics";
import { interTokenGaps, tokensPerChunk } from "../harness/stream-tokens.ts";
import { chatBody, openChatStream } from "./lib/chat.ts";
import { num, str } from "./lib/env.ts";
import { checkEvents } from "./lib/sse.ts";

const MODEL = str("STREAM_MODEL", "agentport/synthetic-20");
const TOKENS = num("STREAM_TOKENS", 20);
const ttft = new Trend("chat_ttft", true);
const itl = new Trend("chat_itl", true);
const e2e = new Trend("chat_e2e", true);
const streamTokensPerS = new Trend("chat_stream_tokens_per_s");
/** Its rate in the summary is the aggregate output tokens per second. */
const outputTokens = new Counter("chat_output_tokens");
/** Its rate is valid streams per second. */
const validStreams = new Counter("chat_valid_streams");
const streamFailed = new Rate("chat_stream_failed");

export const options: Options = {
  scenarios: {
    streams: {
      executor: "ramping-vus",
      exec: "streamChat",
      startVUs: 1,
      stages: [
        { duration: str("RAMP", "30s"), target: num("VUS", 32) },
        { duration: str("HOLD", "1m"), target: num("VUS", 32) },
        { duration: "10s", target: 0 },
      ],
      gracefulRampDown: "30s",
    },
  },
  summaryTrendStats: ["min", "med", "p(90)", "p(95)", "p(99)", "max"],
  thresholds: {
    // xk6-sse reports no http_req_failed: a stream that is not 200, valid and complete counts here.
    chat_stream_failed: [{ threshold: "rate<0.01", abortOnFail: true, delayAbortEval: "10s" }],
    http_req_failed: ["rate<0.01"],
    "http_req_duration{name:chat.stream}": [`p(95)<${num("STREAM_P95_MS", 5000)}`],
    chat_ttft: [`p(95)<${num("TTFT_P95_MS", 1000)}`],
    checks: ["rate>0.99"],
  },
};

export function streamChat(): void {
  const res = openChatStream(chatBody(MODEL, `k6 vu ${__VU} iteration ${__ITER}`), "chat.stream");
  const stream = checkEvents(res.events, TOKENS);
  const ok = check(res, {
    "status 200": (r) => r.status === 200,
    "no transport error": (r) => r.error === "",
    "valid, complete chunk stream": () => stream.ok,
  });
  streamFailed.add(!ok);
  if (!ok) return;
  const tokens = tokensPerChunk(stream.contentChars, stream.completionTokens);
  const total = tokens.reduce((a, b) => a + b, 0);
  ttft.add(stream.contentTimes[0] - res.startedAt);
  for (const gap of interTokenGaps(stream.contentTimes, tokens)) itl.add(gap);
  e2e.add(res.endedAt - res.startedAt);
  streamTokensPerS.add(total / ((res.endedAt - res.startedAt) / 1000));
  outputTokens.add(total);
  validStreams.add(1);
}
