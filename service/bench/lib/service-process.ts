/**
 * The service started for real, as users run it: the production build (`node dist/server.js`, as
 * the image runs it) or `npm start`'s way (`node --import tsx` on the sources), default logging
 * on stdout (discarded here, as a log collector would take it), on a warm data dir.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { bundleOptions } from "../../../scripts/bundle-options.mjs";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** `npm start`'s node arguments, read from package.json's script (`node <args>`), so the bench runs what it runs. */
export function npmStartArgs(): string[] {
  const script = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: { start: string } })
    .scripts.start;
  const [command, ...args] = script.trim().split(/\s+/);
  if (command !== "node")
    throw new Error(`npm start runs '${command}', not node: the bench cannot run it the same way`);
  return args;
}

export const ENTRIES = {
  built: { cwd: "dist", args: ["server.js"], keys: ["keys.js"] },
  tsx: {
    cwd: ".",
    args: npmStartArgs(),
    keys: ["--import", "tsx", "service/src/cli/keys.ts"],
  },
} as const;
export type EntryKind = keyof typeof ENTRIES;

export interface RunningService {
  child: ChildProcess;
  url: string;
  startMs: number;
}

/** Writes `npm run build`'s artifact; every section that runs the built service calls it first. */
export function buildArtifact(): void {
  execFileSync("npm", ["run", "-s", "build"], { stdio: "ignore" });
}

/**
 * Bundles a bench module that runs the service's code (relay-ceiling.ts) as `npm run build` bundles
 * the service, next to a copy of what the bundle reads beside itself (the migrations, the embedded
 * store's template), so it runs as the artifact does. Inside the repository, where its one external
 * package resolves. Call buildArtifact first; returns the bundle's path.
 */
export async function bundleLikeArtifact(module: URL, name: string): Promise<string> {
  const out = join(ROOT, ".tmp", `bench-${name}`);
  rmSync(out, { recursive: true, force: true });
  await build({ ...bundleOptions(ROOT), entryPoints: { [name]: fileURLToPath(module) }, outdir: out });
  const dist = join(ROOT, "dist");
  for (const file of readdirSync(dist))
    if (file === "migrations" || file.endsWith("-datadir.tar.gz"))
      cpSync(join(dist, file), join(out, file), { recursive: true });
  return join(out, `${name}.js`);
}

/**
 * A data dir with the bench's agents: a synthetic one and an llm one on `upstream`. The store is
 * BENCH_DATABASE_URL's unless `databaseUrl` names one (null: the embedded store).
 */
export function benchEnv(
  kind: EntryKind,
  upstream: string,
  databaseUrl: string | null | undefined = process.env.BENCH_DATABASE_URL,
): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), `agentport-bench-${kind}-`));
  writeFileSync(
    join(dir, "agents.json"),
    JSON.stringify({
      agents: [
        { id: "synthetic-20", kind: "synthetic", tokens: 20 },
        { id: "llm-bench", kind: "llm", model: "bench" },
      ],
    }),
  );
  const env: Record<string, string> = {
    DATA_DIR: dir,
    PORT: "0",
    HOST: "127.0.0.1",
    AGENTS_FILE: join(dir, "agents.json"),
    LLM_BASE_URL: upstream,
    LLM_API_KEY: "bench",
    NODE_ENV: "production",
  };
  // BENCH_DATABASE_URL: the metadata store on a PostgreSQL server, as deployments run it (a schema per service started).
  if (databaseUrl)
    Object.assign(env, {
      DATABASE_URL: databaseUrl,
      DATABASE_SCHEMA: `bench_${basename(dir).replace(/\W/g, "_").toLowerCase()}`,
    });
  return env;
}

export function startService(kind: EntryKind, env: Record<string, string>): Promise<RunningService> {
  const started = performance.now();
  const child = spawn(process.execPath, ENTRIES[kind].args, {
    cwd: ENTRIES[kind].cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        child.stdout.off("data", onData);
        child.stdout.resume(); // request logs keep flowing, into nothing
        resolve({ child, url: m[1], startMs: performance.now() - started });
      }
    };
    child.stdout.on("data", onData);
    child.once("exit", (code) => reject(new Error(`${kind} exited with ${code}: ${out}`)));
  });
}

export async function stopService(r: RunningService): Promise<void> {
  if (r.child.exitCode !== null) return;
  const exited = new Promise((res) => r.child.once("exit", res));
  r.child.kill("SIGTERM");
  await exited;
}

/** Starts the service once to make its embedded store (initdb), then again: the warm start users see daily. */
export async function startWarm(kind: EntryKind, env: Record<string, string>): Promise<RunningService> {
  await stopService(await startService(kind, env));
  return startService(kind, env);
}

export function createKey(kind: EntryKind, env: Record<string, string>): string {
  const out = execFileSync(process.execPath, [...ENTRIES[kind].keys, "create", "--name", "bench", "--json"], {
    cwd: ENTRIES[kind].cwd,
    env: { ...process.env, ...env },
  });
  return (JSON.parse(out.toString()) as { secret: string }).secret;
}

const statusMb = (pid: number | "self", field: string) =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
export const rssMb = (pid: number) => statusMb(pid, "VmRSS");
/** The most RSS a process has held so far (the kernel's high-water mark: no sample misses a peak). */
export const peakRssMb = (pid: number | "self") => statusMb(pid, "VmHWM");

/** CPU time (user + system) a process has used, in microseconds, from /proc (clock ticks of 10 ms). */
export function processCpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  // Fields after the command: state is [0], so utime (14th of the line) is [11] and stime [12].
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}
