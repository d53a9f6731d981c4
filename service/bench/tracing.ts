/**
 * What tracing costs, on the production build. Off (no OTEL_EXPORTER_OTLP_ENDPOINT) the service
 * registers no hook and wraps neither the store nor the limiter; what runs per request is the
 * upstream call's one check (telemetry/upstream-span.ts). That check is timed in this process in
 * CPU time, as a share of an llm chat request's CPU time on the service with tracing off in the
 * same run (goal: ratio ≥ 0.98, without over with). For scale, the same service with tracing on,
 * exporting every span to a local OTLP/HTTP sink, against it off: req/s and CPU per request.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { once } from "node:events";
import { load } from "./lib/load.js";
import { startChild } from "./lib/children.js";
import {
  benchEnv,
  buildArtifact,
  createKey,
  processCpuMicros,
  startWarm,
  stopService,
  type RunningService,
} from "./lib/service-process.js";
import { fixed, table } from "../src/cli/table.js";
import { tracedUpstream } from "../src/telemetry/upstream-span.js";
import type { Dispatcher } from "undici";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const CALLS = 1_000_000;

/** A collector that takes every export and drops it. */
async function startOtlpSink(): Promise<{ url: string; close(): void }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

/** CPU nanoseconds the off path of the upstream wrapper adds to one call (tracing is never started here). */
async function offWrapperNanos(): Promise<number> {
  const answer = Promise.resolve({} as Dispatcher.ResponseData);
  const send = (_headers: Record<string, string>) => answer;
  const headers = { "content-type": "application/json" };
  const time = async (f: () => Promise<unknown>) => {
    for (let i = 0; i < CALLS; i++) await f(); // warm up
    const before = process.cpuUsage();
    for (let i = 0; i < CALLS; i++) await f();
    const used = process.cpuUsage(before);
    return ((used.user + used.system) * 1000) / CALLS;
  };
  const direct = await time(() => send(headers));
  const wrapped = await time(() => tracedUpstream("http://upstream/v1/chat/completions", headers, send));
  return Math.max(0, wrapped - direct);
}

interface Figures {
  rps: number;
  cpuPerRequest: number;
  failures: number;
}

async function measure(service: RunningService, key: string): Promise<Figures> {
  const before = processCpuMicros(service.child.pid!);
  const body = JSON.stringify({
    model: "agentport/llm-bench",
    messages: [{ role: "user", content: "Say something." }],
    stream: false,
  });
  const r = await load({
    url: `${service.url}/v1/chat/completions`,
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body,
    seconds: SECONDS,
    connections: CONNECTIONS,
  });
  return {
    rps: r.rps,
    cpuPerRequest: (processCpuMicros(service.child.pid!) - before) / Math.max(1, r.requests),
    failures: r.failures,
  };
}

const average = (xs: Figures[]): Figures => ({
  rps: xs.reduce((a, x) => a + x.rps, 0) / xs.length,
  cpuPerRequest: xs.reduce((a, x) => a + x.cpuPerRequest, 0) / xs.length,
  failures: xs.reduce((a, x) => a + x.failures, 0),
});

export async function run(): Promise<void> {
  buildArtifact();
  const upstream = await startChild<{ url: string }>(new URL("./chat-upstream.ts", import.meta.url));
  const sink = await startOtlpSink();
  const offEnv = benchEnv("built", upstream.info.url);
  const onEnv = { ...benchEnv("built", upstream.info.url), OTEL_EXPORTER_OTLP_ENDPOINT: sink.url };
  const off = await startWarm("built", offEnv);
  const on = await startWarm("built", onEnv);
  const keys = { off: createKey("built", offEnv), on: createKey("built", onEnv) };
  try {
    const runs = { off: [] as Figures[], on: [] as Figures[] };
    // Interleaved, so a neighbour's load falls on both alike.
    for (let i = 0; i < ROUNDS; i++) {
      runs.off.push(await measure(off, keys.off));
      runs.on.push(await measure(on, keys.on));
    }
    const [o, t] = [average(runs.off), average(runs.on)];
    console.log(
      table(
        ["llm agent, JSON", "req/s", "CPU µs/req", "failures"],
        [
          ["tracing off", fixed(o.rps), fixed(o.cpuPerRequest), String(o.failures)],
          ["tracing on (every span exported)", fixed(t.rps), fixed(t.cpuPerRequest), String(t.failures)],
        ],
      ),
    );
    console.log(
      `tracing on vs off: req/s ratio ${fixed(t.rps / o.rps, 2)}, CPU ratio ${fixed(o.cpuPerRequest / t.cpuPerRequest, 2)} (what turning it on costs)`,
    );
    const addedUs = (await offWrapperNanos()) / 1000;
    const ratio = (o.cpuPerRequest - addedUs) / o.cpuPerRequest;
    console.log(
      `tracing off: ${fixed(addedUs * 1000, 1)} ns per request (the upstream call's check, in-process, ${CALLS} calls)`,
    );
    console.log(
      `  = CPU ratio ${fixed(ratio, 4)} of the off service's ${fixed(o.cpuPerRequest)} µs per request (without over with): ${ratio >= 0.98 ? "ok" : "MISSED"} (goal ≥ 0.98)`,
    );
  } finally {
    await Promise.all([stopService(off), stopService(on)]);
    sink.close();
    await upstream.stop();
  }
}
