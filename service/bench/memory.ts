/**
 * Bench section "memory": the memory goals on the Node that runs the bench (the image's is 24).
 * - The built service on a PostgreSQL server (a throwaway database of the local one), idle once
 *   started and settled: goal ≤ 120 MB; then, for information, after relaying requests and after
 *   an offline agent's answer.
 * - `npm start` (its node arguments read from package.json) on the embedded PGlite, warm data
 *   dir: cold start (goal ≤ 3 s), the peak of its first seconds (VmHWM, goal ≤ 400 MB) and its RSS
 *   once settled (goal ≤ 250 MB). PGlite's WebAssembly is what weighs: V8's optimizing tier
 *   recompiles its hot functions in the background after start, and one of them (PostgreSQL's
 *   own code is large) took ~300 MB while it did; `npm start` runs the baseline tier only
 *   (--liftoff-only). The same start without that flag is measured in the same run beside it, as
 *   the baseline the ratios are taken against (this machine's absolute times vary with its load).
 */
import { rmSync } from "node:fs";
import { createTestDatabase } from "../../test/helpers/store.js";
import { Caller } from "./capacity/http.js";
import { startChild } from "./lib/children.js";
import {
  benchEnv,
  buildArtifact,
  createKey,
  ENTRIES,
  peakRssMb,
  rssMb,
  startService,
  startWarm,
  stopService,
  type RunningService,
} from "./lib/service-process.js";

const GOALS = { builtIdleMb: 120, npmStartSettledMb: 250, npmStartPeakMb: 400, coldStartMs: 3000 };
const mark = (ok: boolean) => (ok ? "ok" : "MISSED");
const second = () => new Promise((res) => setTimeout(res, 1000));

/** RSS once two samples a second apart agree within 2 MB (at most `maxSeconds`); and how long that took. */
async function settledRss(pid: number, maxSeconds: number): Promise<{ mb: number; seconds: number }> {
  let last = rssMb(pid);
  for (let s = 1; s <= maxSeconds; s++) {
    await second();
    const now = rssMb(pid);
    if (Math.abs(now - last) <= 2) return { mb: now, seconds: s };
    last = now;
  }
  return { mb: last, seconds: maxSeconds };
}

/**
 * The built service on PostgreSQL: settled once started (the goal's idle), then after relaying
 * llm requests (the deployed path: the upstream reports usage), then after one offline agent's
 * answer, which loads the token counter (~45 MB, on first use by design: domain/agents/tokens.ts).
 */
async function builtOnPostgres(): Promise<{ idle: number; relayed: number; offline: number }> {
  const upstream = await startChild<{ url: string }>(new URL("./chat-upstream.ts", import.meta.url));
  const db = await createTestDatabase();
  const env = benchEnv("built", upstream.info.url, db.url);
  let service: RunningService | undefined;
  try {
    service = await startWarm("built", env);
    const pid = service.child.pid!;
    const idle = (await settledRss(pid, 30)).mb;
    const key = createKey("built", env);
    const caller = new Caller(service.url);
    const chat = (model: string) =>
      caller.call("/v1/chat/completions", key, { model, messages: [{ role: "user", content: "Hi" }] });
    for (let i = 0; i < 20; i++) await chat("agentport/llm-bench");
    const relayed = (await settledRss(pid, 30)).mb;
    await chat("agentport/synthetic-20");
    const offline = (await settledRss(pid, 30)).mb;
    await caller.close();
    return { idle, relayed, offline };
  } finally {
    if (service) await stopService(service);
    rmSync(env.DATA_DIR, { recursive: true, force: true });
    await upstream.stop();
    await db.drop();
  }
}

/** `npm start`'s way (or with other node arguments) on PGlite, warm data dir: start, peak, settled. */
async function npmStartOnPglite(args: string[]) {
  const env = benchEnv("tsx", "http://127.0.0.1:9/v1", null);
  const original = ENTRIES.tsx.args;
  (ENTRIES.tsx as { args: readonly string[] }).args = args;
  try {
    await stopService(await startService("tsx", env)); // makes the data dir
    const service = await startService("tsx", env);
    try {
      const settled = await settledRss(service.child.pid!, 90);
      return { startMs: service.startMs, peakMb: peakRssMb(service.child.pid!), ...settled };
    } finally {
      await stopService(service);
    }
  } finally {
    (ENTRIES.tsx as { args: readonly string[] }).args = original;
    rmSync(env.DATA_DIR, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  buildArtifact();
  const built = await builtOnPostgres();
  console.log(
    `  built, on PostgreSQL, idle once started: ${built.idle.toFixed(0)} MB (goal ≤ ${GOALS.builtIdleMb} MB) ${mark(built.idle <= GOALS.builtIdleMb)}`,
  );
  console.log(
    `    after 20 llm requests: ${built.relayed.toFixed(0)} MB; after an offline agent's answer too (loads the token counter): ${built.offline.toFixed(0)} MB`,
  );
  const npmArgs = [...ENTRIES.tsx.args];
  const baselineArgs = npmArgs.filter((a) => a !== "--liftoff-only");
  const start = await npmStartOnPglite(npmArgs);
  const base = await npmStartOnPglite(baselineArgs);
  console.log(
    `  npm start on PGlite (node ${npmArgs.join(" ")}), warm data dir; baseline: node ${baselineArgs.join(" ")}`,
  );
  const row = (what: string, a: number, b: number, unit: string, goal: number) =>
    console.log(
      `    ${what.padEnd(22)} ${a.toFixed(0).padStart(6)} ${unit}  baseline ${b.toFixed(0).padStart(6)} ${unit}  ratio ${(a / b).toFixed(2)}  (goal ≤ ${goal} ${unit}) ${mark(a <= goal)}`,
    );
  row("cold start", start.startMs, base.startMs, "ms", GOALS.coldStartMs);
  row("first-seconds peak", start.peakMb, base.peakMb, "MB", GOALS.npmStartPeakMb);
  row("settled RSS", start.mb, base.mb, "MB", GOALS.npmStartSettledMb);
  console.log(`    (settled after ${start.seconds} s; the baseline after ${base.seconds} s)`);
}
