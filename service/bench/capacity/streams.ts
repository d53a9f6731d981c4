/**
 * Capacity dimension "concurrent streams": 100 → 1,000 → 5,000 slow chat streams open at once on
 * the production build (its store on a throwaway database of the local PostgreSQL server, as
 * deployments run), read to their end by a client in its own process. While they are open: the
 * time to first token of a probe stream (sequential probes, p50/p99) against the same probes on
 * the idle service just before, the service's RSS (median of samples) and, over the whole wave,
 * its CPU per token.
 *
 * The waves relay the same tokens a second whatever their size (TOKENS_PER_SECOND, each stream's
 * pace its share), so the curve shows what holding more streams costs. At a fixed pace per stream
 * (2 tokens a second each), 5,000 streams were 10,000 tokens a second, which took this 2-core
 * machine, the client beside the service, to its CPU limit: the curve measured the tokens, not the
 * streams. Tokens a second per core are the sizing's figure (sizing.ts, from the CPU per token).
 */
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createTestDatabase } from "../../../test/helpers/store.js";
import { startChild } from "../lib/children.js";
import { benchEnv, createKey, processCpuMicros, rssMb, startWarm, stopService } from "../lib/service-process.js";
import { percentile, ttft, type Target } from "../lib/ttft.js";
import { fixed } from "../../src/cli/table.js";
import { linearSlope, printCurve, type Point } from "./curve.js";
import { streamFindings } from "./sizing.js";

/** Tokens a second the whole wave relays, shared by its streams: 20 a second each at 100 streams, 0.4 at 5,000. */
const TOKENS_PER_SECOND = 2_000;
/** Each stream lasts this long, long enough for the probes. */
const STREAM_MS = 20_000;
/** Probe streams a point: p99 of 40 was their slowest one, and moved 4× between runs. */
const PROBES = 200;

/** A wave's streams: each one's pace (its share of the tokens a second) and its tokens in STREAM_MS. */
const paceOf = (streams: number) => {
  const intervalMs = Math.round((streams * 1000) / TOKENS_PER_SECOND);
  return { id: `slow-${streams}`, intervalMs, tokens: Math.max(1, Math.round(STREAM_MS / intervalMs)) };
};

type Report = { open?: true; ok?: number; failures?: number; firstError?: string; ms?: number };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/**
 * The kernel's count of connections dropped because a listen queue was full (TcpExt ListenOverflows,
 * this network namespace's): what reset streams when thousands connected at once; undefined off Linux.
 */
function listenOverflows(): number | undefined {
  try {
    const lines = readFileSync("/proc/net/netstat", "utf8")
      .split("\n")
      .filter((l) => l.startsWith("TcpExt:"));
    const at = lines[0].split(" ").indexOf("ListenOverflows");
    return at > 0 ? Number(lines[1].split(" ")[at]) : undefined;
  } catch {
    return undefined;
  }
}

export async function run(sizes: number[]): Promise<boolean> {
  const fdLimit = Number(execFileSync("sh", ["-c", "ulimit -n"]).toString());
  const most = Math.max(...sizes);
  if (fdLimit < most + 200) {
    console.log(`    open-file limit ${fdLimit} is below the ${most + 200} this needs (ulimit -n ${most * 2}) MISSED`);
    return false;
  }
  const db = await createTestDatabase();
  const env = benchEnv("built", "http://127.0.0.1:9/v1", db.url);
  writeFileSync(
    env.AGENTS_FILE,
    JSON.stringify({
      agents: [
        ...sizes.map(paceOf).map((p) => ({ id: p.id, kind: "synthetic", tokens: p.tokens, interval_ms: p.intervalMs })),
        { id: "synthetic-20", kind: "synthetic", tokens: 20 },
      ],
    }),
  );
  const service = await startWarm("built", env);
  const pid = service.child.pid!;
  const points: Point[] = [];
  const added: string[] = [];
  let failed = 0;
  try {
    const key = createKey("built", env);
    const probe: Target = {
      url: `${service.url}/v1/chat/completions`,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "agentport/synthetic-20",
        stream: true,
        messages: [{ role: "user", content: "Hi" }],
      }),
    };
    await ttft([probe], 10); // connections and code warm
    for (const size of sizes) {
      const [idle] = await ttft([probe], PROBES);
      const idleRss = rssMb(pid);
      const client = await startChild<{ ready: true }>(new URL("../streams-client.ts", import.meta.url));
      const reports: Report[] = [];
      client.process.on("message", (m: Report) => reports.push(m));
      const cpuBefore = processCpuMicros(pid);
      const overflowsBefore = listenOverflows();
      const pace = paceOf(size);
      client.process.send({ url: service.url, key, model: `agentport/${pace.id}`, count: size });
      while (!reports.some((r) => r.open || r.ok !== undefined)) await new Promise((res) => setTimeout(res, 100));
      const samples = [rssMb(pid)];
      const [open] = await ttft([probe], PROBES);
      while (!reports.some((r) => r.ok !== undefined)) {
        samples.push(rssMb(pid));
        await new Promise((res) => setTimeout(res, 500));
      }
      const cpu = processCpuMicros(pid) - cpuBefore;
      await client.stop();
      const done = reports.find((r) => r.ok !== undefined)!;
      failed += done.failures ?? 0;
      if (done.failures) console.log(`    ${done.failures} of ${size} streams failed (first: ${done.firstError})`);
      const overflows = (listenOverflows() ?? NaN) - (overflowsBefore ?? NaN);
      if (overflows > 0)
        console.log(`    ${overflows} connections overflowed a listen queue (LISTEN_BACKLOG) during the wave`);
      points.push({
        size,
        p50: percentile(open, 50),
        p99: percentile(open, 99),
        cpuUs: cpu / (size * pace.tokens),
        memMb: median(samples),
      });
      added.push(
        `${size}: ${fixed(percentile(open, 99) - percentile(idle, 99), 2)} ms (idle p99 ${fixed(percentile(idle, 99), 2)}); ${fixed(((median(samples) - idleRss) * 1024) / size, 0)} KB a stream over idle ${fixed(idleRss, 0)} MB`,
      );
    }
  } finally {
    await stopService(service);
    rmSync(env.DATA_DIR, { recursive: true, force: true });
    await db.drop();
  }
  // For the sizing: memory per stream fitted over the sizes, the idle RSS that line starts from, CPU per token at the largest.
  const xs = points.map((p) => p.size);
  const kb =
    linearSlope(
      xs,
      points.map((p) => p.memMb),
    ) * 1024;
  const mean = (ys: number[]) => ys.reduce((a, b) => a + b, 0) / ys.length;
  Object.assign(streamFindings, {
    kbPerStream: kb,
    idleMb: mean(points.map((p) => p.memMb)) - (kb / 1024) * mean(xs),
    cpuUsPerToken: points.at(-1)?.cpuUs,
  });
  const flat = printCurve(
    `concurrent streams relaying ${TOKENS_PER_SECOND} tokens a second between them: a probe stream's time to first token while they are open`,
    "streams",
    points,
    "the service's RSS while they are open; CPU is per token relayed, each stream's share of its setup included",
  );
  console.log(`    TTFT added at p99, and memory per open stream, by streams open:`);
  for (const line of added) console.log(`      ${line}`);
  return flat && failed === 0;
}
