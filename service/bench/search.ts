/**
 * Bench section "search": the offline `files` agent, whose every answer is a full-text search in
 * the metadata store. On the embedded store (PGlite) that query runs as WebAssembly on the
 * service's own event loop; on a PostgreSQL server (BENCH_DATABASE_URL) it runs in the database
 * process and the event loop only waits for it. For each store, on the production build:
 * - one answer's latency (sequential requests), for a question matching a few passages and for
 *   one matching every passage of the corpus (the worst case: every passage is ranked);
 * - the agent's throughput and the service's CPU time per answer (20 connections);
 * - what searches cost everybody else: the latency of GET /v1/models alone, and again while
 *   other clients keep asking the agent the worst-case question (the stall the issue names).
 * The figures are reported, not judged: they decide where the embedded store's queries run.
 */
import { rmSync, writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { Agent, request } from "undici";
import OpenAI, { toFile } from "openai";
import { fixed, table } from "../src/cli/table.js";
import { load } from "./lib/load.js";
import { benchEnv, buildArtifact, createKey, processCpuMicros, startWarm, stopService } from "./lib/service-process.js";
import { percentile } from "./lib/ttft.js";

const FILES = Number(process.env.BENCH_SEARCH_FILES ?? 200);
const FILE_CHARS = 16 * 1024;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const SAMPLES = Number(process.env.BENCH_SEARCH_SAMPLES ?? 40);
const PROBES = 300;
const PROBE_EVERY_MS = 7;
/** Clients asking the agent while the models list is timed: fewer than the cores' worth of load. */
const SEARCHING_CLIENTS = 4;

// Prose from a fixed vocabulary: "platform" is in every sentence, each rare word in one file only.
const COMMON = [
  "service",
  "request",
  "deploy",
  "cluster",
  "storage",
  "answer",
  "project",
  "network",
  "secret",
  "replica",
  "upgrade",
  "window",
];
const FREQUENT = "platform";

/** A deterministic text of about FILE_CHARS: sentences of common words, the file's own rare word. */
function fileText(n: number): string {
  let seed = n * 7919 + 1;
  const next = () => (seed = (seed * 48271) % 2147483647);
  const sentences: string[] = [];
  for (let length = 0; length < FILE_CHARS;) {
    const words = [FREQUENT, ...Array.from({ length: 8 + (next() % 8) }, () => COMMON[next() % COMMON.length])];
    if (next() % 20 === 0) words.push(`zephyr${n}`);
    const sentence = words.join(" ") + ".";
    sentences.push(next() % 6 === 0 ? sentence + "\n\n" : sentence + " ");
    length += sentence.length + 1;
  }
  return sentences.join("");
}

interface Measured {
  store: string;
  few: number[];
  every: number[];
  rps: number;
  cpuPerAnswer: number;
  failures: number;
  modelsAlone: number[];
  modelsSearching: number[];
}

const chat = (question: string) =>
  JSON.stringify({ model: "agentport/docs", messages: [{ role: "user", content: question }] });
const FEW = chat(`What does zephyr${Math.floor(FILES / 2)} say?`);
const EVERY = chat(`How does the ${FREQUENT} work?`);

async function timed(
  url: string,
  init: { method: "GET" | "POST"; headers: Record<string, string>; body?: string },
  dispatcher: Agent,
): Promise<number> {
  const start = performance.now();
  const res = await request(url, { ...init, dispatcher });
  await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}`);
  return performance.now() - start;
}

async function measureStore(databaseUrl: string | undefined): Promise<Measured> {
  const env = benchEnv("built", "http://127.0.0.1:9/v1");
  if (!databaseUrl) {
    delete env.DATABASE_URL;
    delete env.DATABASE_SCHEMA;
  }
  writeFileSync(env.AGENTS_FILE, JSON.stringify({ agents: [{ id: "docs", kind: "files", max_results: 3 }] }));
  const service = await startWarm("built", env);
  const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
  try {
    const key = createKey("built", env);
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const client = new OpenAI({ apiKey: key, baseURL: `${service.url}/v1` });
    for (let n = 0; n < FILES; n += 8) {
      await Promise.all(
        Array.from({ length: Math.min(8, FILES - n) }, async (_, i) =>
          client.files.create({
            file: await toFile(Buffer.from(fileText(n + i)), `doc-${n + i}.txt`),
            purpose: "assistants",
          }),
        ),
      );
    }
    const ask = (body: string) =>
      timed(`${service.url}/v1/chat/completions`, { method: "POST", headers, body }, dispatcher);
    const few: number[] = [];
    const every: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      few.push(await ask(FEW));
      every.push(await ask(EVERY));
    }
    const cpuBefore = processCpuMicros(service.child.pid!);
    const result = await load({
      url: `${service.url}/v1/chat/completions`,
      headers,
      body: EVERY,
      seconds: SECONDS,
      connections: 20,
    });
    const cpuPerAnswer = (processCpuMicros(service.child.pid!) - cpuBefore) / Math.max(1, result.requests);

    // Probes sent on a fixed schedule, not one after another: a prober that waits for each answer
    // sends most of its probes between stalls and under-reports them.
    const probeModels = async () => {
      const probes: Array<Promise<number>> = [];
      for (let i = 0; i < PROBES; i++) {
        probes.push(timed(`${service.url}/v1/models`, { method: "GET", headers }, dispatcher));
        await new Promise((res) => setTimeout(res, PROBE_EVERY_MS));
      }
      return Promise.all(probes);
    };
    await new Promise((res) => setTimeout(res, 1000)); // the load's last searches are over
    const modelsAlone = await probeModels();
    const searching = load({
      url: `${service.url}/v1/chat/completions`,
      headers,
      body: EVERY,
      seconds: SECONDS,
      connections: SEARCHING_CLIENTS,
    });
    await new Promise((res) => setTimeout(res, 200)); // the searches are under way
    const modelsSearching = await probeModels();
    const searched = await searching;
    const store = databaseUrl ? "PostgreSQL server" : "embedded PGlite";
    return {
      store,
      few,
      every,
      rps: result.rps,
      cpuPerAnswer,
      failures: result.failures + searched.failures,
      modelsAlone,
      modelsSearching,
    };
  } finally {
    await dispatcher.close();
    await stopService(service);
    rmSync(env.DATA_DIR, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  buildArtifact();
  const stores = [undefined, process.env.BENCH_DATABASE_URL].filter((s, i) => i === 0 || s);
  const results: Measured[] = [];
  for (const databaseUrl of stores) results.push(await measureStore(databaseUrl));
  const ms = (s: number[], q: number) =>
    fixed(
      percentile(
        [...s].sort((a, b) => a - b),
        q,
      ),
      2,
    );
  console.log(
    `files agent over ${FILES} text files of ${FILE_CHARS / 1024} KiB (about ${Math.round((FILES * FILE_CHARS) / 1200)} passages); ${SAMPLES} sequential answers per question`,
  );
  console.log(
    table(
      [
        "store",
        "few passages p50/p99 ms",
        "every passage p50/p99 ms",
        "answers/s (20 conns)",
        "CPU µs/answer",
        "models p50/p99 ms alone",
        `models p50/p99 ms, ${SEARCHING_CLIENTS} clients searching`,
        "failures",
      ],
      results.map((r) => [
        r.store,
        `${ms(r.few, 50)} / ${ms(r.few, 99)}`,
        `${ms(r.every, 50)} / ${ms(r.every, 99)}`,
        fixed(r.rps),
        fixed(r.cpuPerAnswer),
        `${ms(r.modelsAlone, 50)} / ${ms(r.modelsAlone, 99)}`,
        `${ms(r.modelsSearching, 50)} / ${ms(r.modelsSearching, 99)}`,
        String(r.failures),
      ]),
    ),
  );
  if (stores.length === 1)
    console.log("set BENCH_DATABASE_URL to compare with a PostgreSQL server, as deployments run");
}
