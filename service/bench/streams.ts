/**
 * Bench section "streams": 2,000 slow streams open at once on the production build, read to
 * their end by a client in its own process. The service's RSS while all are open (median of
 * samples) against the figure measured before (313 MB), and its peak while they open (VmHWM, reset
 * once the service is idle); the growth over idle per stream too. The store is named in the
 * output, with its goal: ≤ 313 MB on a PostgreSQL server (BENCH_DATABASE_URL, as deployments run),
 * ≤ 450 MB on the embedded PGlite.
 */
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { startChild } from "./lib/children.js";
import { benchEnv, buildArtifact, createKey, peakRssMb, rssMb, startWarm, stopService } from "./lib/service-process.js";

const STREAMS = 2000;
const TOKENS = 60;
const INTERVAL_MS = 250; // 60 tokens at 250 ms: each stream lasts ~15 s
/** RSS while all are open: on a PostgreSQL server (kept from before) and on the embedded store. */
const RSS_GOAL_MB = { postgres: 313, pglite: 450 };

type Report = { open?: true; ok?: number; failures?: number; firstError?: string; ms?: number };

export async function run(): Promise<void> {
  // Each stream holds a socket on each side; both processes inherit this shell's limit.
  const fdLimit = Number(execFileSync("sh", ["-c", "ulimit -n"]).toString());
  if (fdLimit < STREAMS + 200) {
    console.log(
      `  open-file limit ${fdLimit} is below the ${STREAMS + 200} this needs: raise it (ulimit -n ${STREAMS * 2}) and run again. MISSED`,
    );
    return;
  }
  buildArtifact();
  const env = benchEnv("built", "http://127.0.0.1:9/v1");
  writeFileSync(
    env.AGENTS_FILE,
    JSON.stringify({ agents: [{ id: "slow", kind: "synthetic", tokens: TOKENS, interval_ms: INTERVAL_MS }] }),
  );
  const service = await startWarm("built", env);
  const client = await startChild<{ ready: true }>(new URL("./streams-client.ts", import.meta.url));
  try {
    const key = createKey("built", env);
    const pid = service.child.pid!;
    const idle = rssMb(pid);
    // Start the high-water mark afresh (Linux ≥ 4.0): the peak is then the streams', not the store's start.
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    const reports: Report[] = [];
    client.process.on("message", (m: Report) => reports.push(m));
    client.process.send({ url: service.url, key, model: "agentport/slow", count: STREAMS });
    const samples: number[] = [];
    while (!reports.some((r) => r.ok !== undefined)) {
      await new Promise((res) => setTimeout(res, 500));
      if (reports.some((r) => r.open) && !reports.some((r) => r.ok !== undefined)) samples.push(rssMb(pid));
    }
    const done = reports.find((r) => r.ok !== undefined)!;
    const peak = peakRssMb(pid);
    const steady = samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? NaN;
    console.log(`  open-file limit ${fdLimit} (enough for ${STREAMS} streams)`);
    console.log(
      `  ${STREAMS} streams of ${TOKENS} tokens every ${INTERVAL_MS} ms: ${done.ok} ended with [DONE], ${done.failures} failed${done.firstError ? ` (first: ${done.firstError})` : ""}, in ${(done.ms! / 1000).toFixed(1)} s`,
    );
    const store = env.DATABASE_URL
      ? "PostgreSQL server (BENCH_DATABASE_URL), as deployments run"
      : "embedded PGlite (set BENCH_DATABASE_URL for a PostgreSQL server, as deployments run)";
    console.log(`  store: ${store}`);
    console.log(
      `  service RSS: idle ${idle.toFixed(0)} MB, peak ${peak.toFixed(0)} MB while the streams opened; ${(((steady - idle) * 1024) / STREAMS).toFixed(0)} KB per open stream`,
    );
    // The earlier figure was the RSS sampled while every stream was open; the peak is reported beside it.
    const goal = env.DATABASE_URL ? RSS_GOAL_MB.postgres : RSS_GOAL_MB.pglite;
    console.log(
      `  all ${STREAMS} open: ${steady.toFixed(0)} MB (median of ${samples.length} samples; goal ≤ ${goal} MB on this store) ${steady <= goal && done.failures === 0 ? "ok" : "MISSED"}`,
    );
  } finally {
    await client.stop();
    await stopService(service);
    rmSync(env.DATA_DIR, { recursive: true, force: true });
  }
}
