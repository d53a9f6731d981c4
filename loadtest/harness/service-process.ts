/**
 * Runs the service as a child process (its own event loop, so the harness's load does not
 * skew its timings) on a loopback port with a fresh data directory; stopped by its pid.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { waitForPort } from "../gateway/ports.js";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface RunningService {
  pid: number;
  port: number;
  dataDir: string;
  blobDir: string;
  /** The last lines the service printed (for diagnostics). */
  output(): string;
  stop(): Promise<void>;
}

export interface StartServiceOptions {
  port: number;
  /** Service environment on top of a sealed local default (PGlite, local blobs). */
  env: Record<string, string>;
  startTimeoutMs?: number;
}

export async function startService(opts: StartServiceOptions): Promise<RunningService> {
  const dataDir = mkdtempSync(join(tmpdir(), "agentport-loadtest-svc-"));
  const blobDir = join(dataDir, "blobs");
  const env: Record<string, string | undefined> = {
    ...process.env,
    HOST: "127.0.0.1",
    PORT: String(opts.port),
    DATA_DIR: dataDir,
    // Never the caller's database or cloud storage: a local run is self-contained.
    DATABASE_URL: "",
    BLOB_STORE: "local",
    BLOB_DIR: blobDir,
    LOG_LEVEL: "warn",
    SHUTDOWN_GRACE_SECONDS: "1",
    ...opts.env,
  };
  const child = spawn(process.execPath, ["--import", "tsx", join(REPO_ROOT, "service/src/server.ts")], {
    cwd: REPO_ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const keep = (d: Buffer) => (out = (out + d.toString()).slice(-8000));
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  let exited = false;
  child.once("exit", () => (exited = true));

  try {
    // Embedded PostgreSQL initialises its data directory on first start: allow for a slow machine.
    await waitForPort(opts.port, () => !exited, opts.startTimeoutMs ?? 120_000);
  } catch (err) {
    child.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
    throw new Error(`the service did not start: ${(err as Error).message}\n${out}`, { cause: err });
  }
  return {
    pid: child.pid!,
    port: opts.port,
    dataDir,
    blobDir,
    output: () => out,
    async stop() {
      if (!exited) {
        const done = once(child, "exit");
        process.kill(child.pid!, "SIGTERM");
        const timer = setTimeout(() => !exited && process.kill(child.pid!, "SIGKILL"), 5000);
        await done;
        clearTimeout(timer);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
