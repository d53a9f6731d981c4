/**
 * Bench section "artifact": the production build (`node dist/server.js`, as the image runs it)
 * against `npm start`'s way (`node --import tsx` on the sources), both started for real on warm
 * data dirs with default logging: cold start, idle RSS, and req/s on the synthetic and llm paths,
 * as ratios measured in the same run.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { startChild } from "./lib/children.js";
import { load } from "./lib/load.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 20;

interface Running {
  child: ChildProcess;
  url: string;
  startMs: number;
}

const ENTRIES = {
  built: { cwd: "dist", args: ["server.js"], keys: ["keys.js"] },
  tsx: { cwd: ".", args: ["--import", "tsx", "service/src/server.ts"], keys: ["--import", "tsx", "service/src/cli/keys.ts"] },
} as const;

function start(kind: keyof typeof ENTRIES, env: Record<string, string>): Promise<Running> {
  const started = performance.now();
  const child = spawn(process.execPath, ENTRIES[kind].args, { cwd: ENTRIES[kind].cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d;
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        child.stdout!.removeAllListeners("data");
        child.stdout!.resume();
        resolve({ child, url: m[1], startMs: performance.now() - started });
      }
    });
    child.once("exit", (code) => reject(new Error(`${kind} exited with ${code}: ${out}`)));
  });
}

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

async function stop(r: Running) {
  const exited = new Promise((res) => r.child.once("exit", res));
  r.child.kill("SIGTERM");
  await exited;
}

export async function run(): Promise<void> {
  execFileSync("npm", ["run", "-s", "build"], { stdio: "ignore" });
  const upstream = await startChild<{ url: string }>(new URL("./chat-upstream.ts", import.meta.url));
  const rows: Array<[string, number, number]> = [];
  try {
    const figures: Record<string, { startMs: number; rss: number; rps: Record<string, number> }> = {};
    for (const kind of ["built", "tsx"] as const) {
      const dir = mkdtempSync(join(tmpdir(), `agentport-bench-${kind}-`));
      writeFileSync(join(dir, "agents.json"), JSON.stringify({ agents: [{ id: "synthetic-20", kind: "synthetic", tokens: 20 }, { id: "llm-bench", kind: "llm", model: "bench" }] }));
      const env = { DATA_DIR: dir, PORT: "0", HOST: "127.0.0.1", AGENTS_FILE: join(dir, "agents.json"), LLM_BASE_URL: upstream.info.url, LLM_API_KEY: "bench", NODE_ENV: "production" };
      // First start makes the embedded store (initdb): the measured start is the warm one.
      await stop(await start(kind, env));
      const r = await start(kind, env);
      await new Promise((res) => setTimeout(res, 1000));
      const rss = rssMb(r.child.pid!);
      const key = JSON.parse(execFileSync(process.execPath, [...ENTRIES[kind].keys, "create", "--name", "bench", "--json"], { cwd: ENTRIES[kind].cwd, env: { ...process.env, ...env } }).toString()).secret as string;
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
      await stop(r);
    }
    const { built, tsx } = figures;
    console.log(`  cold start (warm data dir): built ${built.startMs.toFixed(0)} ms, npm start's way ${tsx.startMs.toFixed(0)} ms`);
    console.log(`  idle RSS: built ${built.rss.toFixed(0)} MB, npm start's way ${tsx.rss.toFixed(0)} MB`);
    for (const path of Object.keys(built.rps)) rows.push([path, built.rps[path], tsx.rps[path]]);
    console.log(`  ${"path".padEnd(16)} ${"built req/s".padStart(12)} ${"tsx req/s".padStart(12)} ${"ratio".padStart(7)}`);
    for (const [path, b, t] of rows) console.log(`  ${path.padEnd(16)} ${b.toFixed(0).padStart(12)} ${t.toFixed(0).padStart(12)} ${(b / t).toFixed(2).padStart(7)}`);
  } finally {
    await upstream.stop();
  }
}
