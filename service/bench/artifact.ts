/**
 * Bench section "artifact": the production build (`node dist/server.js`, as the image runs it)
 * against `npm start`'s way (`node --import tsx` on the sources), both started for real on warm
 * data dirs with default logging: cold start, idle RSS, and req/s on the synthetic and llm paths,
 * as ratios measured in the same run. Then the idle RSS goals of a lean embedded default: `npm start`
 * on the embedded store (PGlite) and the built service on a PostgreSQL server (BENCH_DATABASE_URL,
 * or the local one), each started on its own.
 */
import { rmSync } from "node:fs";
import { startChild } from "./lib/children.js";
import { load } from "./lib/load.js";
import {
  benchEnv,
  buildArtifact,
  createKey,
  rssMb,
  startWarm,
  stopService,
  type EntryKind,
} from "./lib/service-process.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 20;
const LOCAL_POSTGRES = "postgres://postgres@127.0.0.1:5432/test";
/** Idle RSS goals: [how it runs, entry, store (null: embedded), MB]. */
const IDLE_GOALS: Array<[string, EntryKind, string | null, number]> = [
  ["npm start's way on PGlite", "tsx", null, 250],
  ["built on PostgreSQL", "built", process.env.BENCH_DATABASE_URL ?? LOCAL_POSTGRES, 120],
];

/**
 * RSS of the service started on its own, warm, once idle: after a second, then a sample a second
 * until two agree within 2 MB (at most 10 s). On Node 24 V8 recompiles PGlite's hot WebAssembly
 * in the background for a few seconds after start, holding ~300 MB more meanwhile; both figures
 * are printed.
 */
async function idleRss(
  kind: EntryKind,
  upstream: string,
  databaseUrl: string | null,
): Promise<{ atOneSecond: number; settled: number }> {
  const env = benchEnv(kind, upstream, databaseUrl);
  const r = await startWarm(kind, env);
  const second = () => new Promise((res) => setTimeout(res, 1000));
  try {
    await second();
    const atOneSecond = rssMb(r.child.pid!);
    let settled = atOneSecond;
    for (let i = 0; i < 9; i++) {
      await second();
      const now = rssMb(r.child.pid!);
      const steady = Math.abs(now - settled) <= 2;
      settled = now;
      if (steady) break;
    }
    return { atOneSecond, settled };
  } finally {
    await stopService(r);
    rmSync(env.DATA_DIR, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  buildArtifact();
  const upstream = await startChild<{ url: string }>(new URL("./chat-upstream.ts", import.meta.url));
  const rows: Array<[string, number, number]> = [];
  try {
    const figures: Record<string, { startMs: number; rss: number; rps: Record<string, number> }> = {};
    for (const kind of ["built", "tsx"] as const) {
      const env = benchEnv(kind, upstream.info.url);
      const r = await startWarm(kind, env);
      await new Promise((res) => setTimeout(res, 1000));
      const rss = rssMb(r.child.pid!);
      const key = createKey(kind, env);
      const rps: Record<string, number> = {};
      for (const [path, model, stream] of [
        ["synthetic JSON", "agentport/synthetic-20", false],
        ["synthetic SSE", "agentport/synthetic-20", true],
        ["llm JSON", "agentport/llm-bench", false],
        ["llm SSE", "agentport/llm-bench", true],
      ] as const) {
        const result = await load({
          url: `${r.url}/v1/chat/completions`,
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ model, stream, messages: [{ role: "user", content: "Say something." }] }),
          seconds: SECONDS,
          connections: CONNECTIONS,
        });
        if (result.failures) throw new Error(`${kind} ${path}: ${result.failures} failures`);
        rps[path] = result.rps;
      }
      figures[kind] = { startMs: r.startMs, rss, rps };
      await stopService(r);
    }
    const { built, tsx } = figures;
    console.log(
      `  cold start (warm data dir): built ${built.startMs.toFixed(0)} ms, npm start's way ${tsx.startMs.toFixed(0)} ms`,
    );
    console.log(`  RSS right after start: built ${built.rss.toFixed(0)} MB, npm start's way ${tsx.rss.toFixed(0)} MB`);
    for (const path of Object.keys(built.rps)) rows.push([path, built.rps[path], tsx.rps[path]]);
    console.log(
      `  ${"path".padEnd(16)} ${"built req/s".padStart(12)} ${"tsx req/s".padStart(12)} ${"ratio".padStart(7)}`,
    );
    for (const [path, b, t] of rows)
      console.log(
        `  ${path.padEnd(16)} ${b.toFixed(0).padStart(12)} ${t.toFixed(0).padStart(12)} ${(b / t).toFixed(2).padStart(7)}`,
      );
    for (const [what, kind, databaseUrl, goal] of IDLE_GOALS) {
      const { atOneSecond, settled } = await idleRss(kind, upstream.info.url, databaseUrl);
      console.log(
        `  idle RSS, ${what}: ${settled.toFixed(0)} MB settled, ${atOneSecond.toFixed(0)} MB a second after start (goal ≤ ${goal} MB) ${settled <= goal ? "ok" : "MISSED"}`,
      );
    }
  } finally {
    await upstream.stop();
  }
}
