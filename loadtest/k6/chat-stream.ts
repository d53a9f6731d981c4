/**
 * Streaming chat under concurrency: every response is a complete, valid chunk stream.
 *   k6 run -e BASE_URL=https://api.example.com -e API_KEY=ap-… loadtest/k6/chat-stream.ts
 * STREAM_MODEL/STREAM_TOKENS pick the synthetic agent (default: the built-in synthetic-20).
 * k6 reads a body whole, so TTFT is approximated by http_req_waiting (time to headers).
 */
import { check } from "k6";
import type { Options } from "k6/options";
import { Trend } from "k6/metrics";
import { chatBody, postChat } from "./lib/chat.ts";
import { num, str } from "./lib/env.ts";
import { checkStream } from "./lib/sse.ts";

const MODEL = str("STREAM_MODEL", "agentport/synthetic-20");
const TOKENS = num("STREAM_TOKENS", 20);
const streamDuration = new Trend("chat_stream_duration", true);

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
  thresholds: {
    http_req_failed: [{ threshold: "rate<0.01", abortOnFail: true, delayAbortEval: "10s" }],
    "http_req_duration{name:chat.stream}": [`p(95)<${num("STREAM_P95_MS", 5000)}`],
    "http_req_waiting{name:chat.stream}": [`p(95)<${num("TTFB_P95_MS", 1000)}`],
    checks: ["rate>0.99"],
  },
};

export function streamChat(): void {
  const res = postChat(chatBody(MODEL, `k6 vu ${__VU} iteration ${__ITER}`), { name: "chat.stream" });
  const body = typeof res.body === "string" ? res.body : "";
  const stream = checkStream(body, TOKENS);
  streamDuration.add(res.timings.duration);
  check(res, {
    "status 200": (r) => r.status === 200,
    "content-type is text/event-stream": (r) => (r.headers["Content-Type"] ?? "").startsWith("text/event-stream"),
    "valid, complete chunk stream": () => stream.ok,
  });
}
