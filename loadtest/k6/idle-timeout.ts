/**
 * A stream silent for longer than the gateway's read timeout survives because of heartbeats.
 * Needs a synthetic agent with `silence_ms` above READ_TIMEOUT_MS on the target:
 *   k6 run -e SILENT_MODEL=agentport/slow-start -e SILENCE_MS=200000 … loadtest/k6/idle-timeout.ts
 * The negative control (the same stream without heartbeats is cut) needs an instance with
 * heartbeats off: the harness's --local mode runs it.
 */
import { check } from "k6";
import type { Options } from "k6/options";
import { chatBody, postChat } from "./lib/chat.ts";
import { limits, num, str } from "./lib/env.ts";
import { checkStream } from "./lib/sse.ts";

const MODEL = str("SILENT_MODEL");
const SILENCE_MS = num("SILENCE_MS", Math.round(limits.readTimeoutMs * 1.5));

export const options: Options = {
  scenarios: {
    silent_streams: {
      executor: "per-vu-iterations",
      exec: "silentStream",
      vus: num("VUS", 2),
      iterations: 1,
      maxDuration: `${Math.ceil((SILENCE_MS + limits.readTimeoutMs * 3) / 1000) + 30}s`,
    },
  },
  thresholds: {
    http_req_failed: [{ threshold: "rate==0", abortOnFail: true }],
    "http_req_duration{name:chat.silent}": [`p(95)>${limits.readTimeoutMs}`],
    checks: ["rate==1"],
  },
};

export function silentStream(): void {
  const res = postChat(chatBody(MODEL, "stay silent"), {
    name: "chat.silent",
    timeoutMs: SILENCE_MS + limits.readTimeoutMs * 3,
  });
  const body = typeof res.body === "string" ? res.body : "";
  const stream = checkStream(body);
  check(res, {
    "status 200": (r) => r.status === 200,
    "outlived the read timeout": (r) => r.timings.duration > limits.readTimeoutMs,
    "heartbeats during the silence": () =>
      stream.heartbeats >= Math.floor(SILENCE_MS / 1000 / limits.heartbeatSeconds) - 1,
    "stream complete after the silence": () => stream.ok,
  });
}
