/**
 * Bench section "hostile": what one hostile tenant's request costs everybody else on the replica.
 * A probe (GET /health, one at a time) measures the event loop's lag while, in turn:
 * - nothing else runs (the baseline);
 * - prompts of 768 KiB of random CJK (the tokenizer's most costly input) go to an offline agent,
 *   which counts their tokens;
 * - a 5 MB question goes to the `files` agent;
 * - an `llm` agent's upstream answers 200 MiB of JSON (RSS before and after; the service caps it).
 * The probe's p50/p99/max per phase are printed against the baseline's, and the RSS growth.
 */
import { once } from "node:events";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { request } from "undici";
import { fixed, table } from "../src/cli/table.js";
import { benchEnv, createKey, rssMb, startWarm, stopService } from "./lib/service-process.js";
import { percentile } from "./lib/ttft.js";

const PHASE_MS = Number(process.env.BENCH_HOSTILE_MS ?? 6_000);
const PROBE_EVERY_MS = 10;
const HUGE_ANSWER_MIB = 200;

/** One answer of HUGE_ANSWER_MIB, each MiB written when the last one was taken. */
async function answerHuge(res: ServerResponse): Promise<void> {
  res.writeHead(200, { "content-type": "application/json" });
  res.write(
    '{"id":"x","object":"chat.completion","created":1,"model":"up","choices":[{"index":0,"message":{"content":"',
  );
  const piece = "a".repeat(1024 * 1024);
  for (let i = 0; i < HUGE_ANSWER_MIB && !res.destroyed; i++) await new Promise((written) => res.write(piece, written));
  if (!res.destroyed) res.end('"}}]}');
}

/** An upstream whose every answer is one JSON object of HUGE_ANSWER_MIB, written as fast as it is read. */
async function hugeUpstream() {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => void answerHuge(res));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}

const randomCjk = (n: number) =>
  Array.from({ length: n }, () => String.fromCharCode(0x4e00 + Math.floor(Math.random() * 20000))).join("");

/** Probes GET /health until `done` settles; each probe's latency in ms. */
async function probeWhile(url: string, done: Promise<unknown>): Promise<number[]> {
  const lags: number[] = [];
  let over = false;
  void done.finally(() => (over = true));
  while (!over) {
    const start = performance.now();
    const res = await request(`${url}/health`);
    await res.body.text();
    lags.push(performance.now() - start);
    await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
  }
  return lags.sort((a, b) => a - b);
}

/** Sends `body` to the chat endpoint again and again until PHASE_MS has passed; the statuses seen. */
async function keepSending(url: string, key: string, body: () => string): Promise<string> {
  const statuses = new Map<number, number>();
  const until = performance.now() + PHASE_MS;
  while (performance.now() < until) {
    const res = await request(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: body(),
    });
    await res.body.text();
    statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
  }
  return [...statuses].map(([s, n]) => `${n}×${s}`).join(" ");
}

export async function run(): Promise<void> {
  const upstream = await hugeUpstream();
  const env: Record<string, string> = { ...benchEnv("tsx", upstream.url), JSON_BODY_LIMIT: "8m" };
  const agentsFile = join(env.DATA_DIR, "hostile-agents.json");
  writeFileSync(
    agentsFile,
    JSON.stringify({
      agents: [
        { id: "synthetic-20", kind: "synthetic", tokens: 20 },
        { id: "files", kind: "files" },
        { id: "huge", kind: "llm", model: "huge" },
      ],
    }),
  );
  env.AGENTS_FILE = agentsFile;
  console.error("  starting the service…");
  const service = await startWarm("tsx", env);
  const key = createKey("tsx", env);
  const chat = (model: string, content: string) =>
    JSON.stringify({ model: `agentport/${model}`, stream: false, messages: [{ role: "user", content }] });
  const cjk = randomCjk((768 * 1024) / 3); // 768 KiB of UTF-8
  const question = "where is the invoice ".repeat((5 * 1024 * 1024) / 21);
  const phases: Array<[string, () => Promise<string>]> = [
    ["baseline (nothing else)", () => new Promise((r) => setTimeout(() => r("-"), PHASE_MS))],
    [
      "768 KiB random CJK prompts",
      () => keepSending(service.url, key, () => chat("synthetic-20", cjk + randomCjk(16))),
    ],
    ["5 MB question to files", () => keepSending(service.url, key, () => chat("files", question))],
    [`${HUGE_ANSWER_MIB} MiB upstream answer`, () => keepSending(service.url, key, () => chat("huge", "hi"))],
  ];
  const rows: string[][] = [];
  try {
    for (const [name, hostile] of phases) {
      console.error(`  ${name}…`);
      const rssBefore = rssMb(service.child.pid!);
      const work = hostile();
      const lags = await probeWhile(service.url, work);
      const statuses = await work;
      rows.push([
        name,
        statuses,
        String(lags.length),
        fixed(percentile(lags, 50), 1),
        fixed(percentile(lags, 99), 1),
        fixed(lags.at(-1)!, 1),
        fixed(rssBefore),
        fixed(rssMb(service.child.pid!)),
      ]);
    }
  } finally {
    await stopService(service);
    upstream.server.closeAllConnections();
    upstream.server.close();
  }
  console.log(
    table(["phase", "answers", "probes", "p50 ms", "p99 ms", "max ms", "RSS before MB", "RSS after MB"], rows, 2),
  );
  const [base] = rows;
  for (const r of rows.slice(1))
    console.log(`${r[0]}: probe p99 ${fixed(Number(r[4]) / Number(base[4]), 1)}× the baseline's, max ${r[5]} ms`);
}
