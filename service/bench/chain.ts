/**
 * Bench section "chain": what continuing a large `previous_response_id` chain costs the replica.
 * For stored conversations of several sizes, 8 continuations run at once, over and over, while a
 * probe (GET /health, one at a time) measures the event loop's lag; then, with the service's
 * default RESPONSES_CHAIN_MAX_BYTES, the same continuation of a larger chain is refused up front.
 * Loopback only; BENCH_DATABASE_URL puts the store on a PostgreSQL server.
 */
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { request } from "undici";
import { fixed, table } from "../src/cli/table.js";
import { benchEnv, createKey, startWarm, stopService } from "./lib/service-process.js";
import { percentile } from "./lib/ttft.js";

const PARALLEL = 8;
const ROUNDS = Number(process.env.BENCH_CHAIN_ROUNDS ?? 3);
const SIZES_MIB = [0.5, 1, 4, 16];
const PIECE = 512 * 1024;

/** An upstream that answers every chat completion with "ok" at once. */
async function shortUpstream() {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: "c",
          object: "chat.completion",
          created: 1,
          model: "m",
          choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}

/** What the bench reads of an answer: a response's id, or an error. */
type Answer = { id?: string; error?: unknown };

async function respond(url: string, key: string, body: object): Promise<{ status: number; json: Answer }> {
  const res = await request(`${url}/v1/responses`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "agentport/llm-bench", ...body }),
  });
  return { status: res.statusCode, json: (await res.body.json()) as Answer };
}

/** A stored chain of about `mib` MiB: pieces of PIECE bytes, each continuing the last; its last id. */
async function chainOf(url: string, key: string, mib: number): Promise<string> {
  let previous: string | undefined;
  for (let stored = 0; stored < mib * 1024 * 1024; stored += PIECE) {
    const { status, json } = await respond(url, key, {
      input: "x".repeat(PIECE),
      ...(previous && { previous_response_id: previous }),
    });
    if (status !== 200) throw new Error(`building the chain: ${status} ${JSON.stringify(json).slice(0, 200)}`);
    previous = json.id;
  }
  return previous!;
}

/** /health latencies while `work` runs. */
async function probeWhile(url: string, work: Promise<unknown>): Promise<number[]> {
  const lags: number[] = [];
  let over = false;
  void work.finally(() => (over = true));
  while (!over) {
    const start = performance.now();
    await (await request(`${url}/health`)).body.text();
    lags.push(performance.now() - start);
    await new Promise((r) => setTimeout(r, 10));
  }
  return lags.sort((a, b) => a - b);
}

async function measure(url: string, key: string, mib: number): Promise<string[]> {
  const last = await chainOf(url, key, mib);
  const statuses = new Map<number, number>();
  const continueIt = async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { status } = await respond(url, key, { input: "and then?", previous_response_id: last, store: false });
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  const started = performance.now();
  const lags = await probeWhile(url, Promise.all(Array.from({ length: PARALLEL }, continueIt)));
  const perRequest = (performance.now() - started) / ROUNDS;
  return [
    `${mib} MiB`,
    [...statuses].map(([s, n]) => `${n}×${s}`).join(" "),
    fixed(perRequest),
    fixed(percentile(lags, 50), 1),
    fixed(percentile(lags, 99), 1),
    fixed(lags.at(-1)!, 1),
  ];
}

export async function run(): Promise<void> {
  const upstream = await shortUpstream();
  const rows: string[][] = [];
  const env = { ...benchEnv("tsx", upstream.url), JSON_BODY_LIMIT: "1m", RESPONSES_CHAIN_MAX_BYTES: "32m" };
  console.error("  starting the service…");
  const service = await startWarm("tsx", env);
  const key = createKey("tsx", env);
  try {
    for (const mib of SIZES_MIB) {
      console.error(`  ${PARALLEL} continuations of a ${mib} MiB chain at once…`);
      rows.push(await measure(service.url, key, mib));
    }
  } finally {
    await stopService(service);
    upstream.server.close();
  }
  console.log(
    table(["chain", "answers", `ms per round of ${PARALLEL}`, "/health p50 ms", "p99 ms", "max ms"], rows, 2),
  );
}
