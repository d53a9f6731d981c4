/**
 * While a server runs on the embedded store it records where it listens in its data dir, so a
 * CLI on the same data dir goes through it — PGlite must never be opened by two processes —
 * whatever PORT the CLI's own environment says.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

interface ServerRecord {
  pid: number;
  /** Absent while the server is starting (the store is already open, the port not yet bound). */
  url?: string;
}

const recordFile = (dataDir: string) => join(dataDir, "server.json");

export function writeServerRecord(dataDir: string, url?: string): () => void {
  const file = recordFile(dataDir);
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, JSON.stringify({ pid: process.pid, url } satisfies ServerRecord) + "\n", { mode: 0o600 });
  return () => rmSync(file, { force: true });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
};

/**
 * The live server holding `dataDir`: `undefined` when there is none (a record left by a crash is
 * ignored), `{ url: undefined }` while it is still starting.
 */
export function runningServer(dataDir: string): { url?: string } | undefined {
  try {
    const record = JSON.parse(readFileSync(recordFile(dataDir), "utf8")) as ServerRecord;
    return alive(record.pid) ? { url: record.url } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * For a server about to start: whether another live server holds `dataDir`. A pid is not proof —
 * in a container the restarted node is PID 1 again, the pid of the record its OOM-killed
 * predecessor left — so a record with our own pid is stale, and a recorded URL must answer
 * /health the way agentport does. A record without a URL (a server still starting) whose pid is
 * another live process is trusted.
 */
export async function dataDirHeld(dataDir: string): Promise<boolean> {
  let record: ServerRecord;
  try {
    record = JSON.parse(readFileSync(recordFile(dataDir), "utf8")) as ServerRecord;
  } catch {
    return false;
  }
  if (record.pid === process.pid || !alive(record.pid)) return false;
  if (!record.url) return true;
  try {
    const res = await fetch(`${record.url}/health`, { signal: AbortSignal.timeout(1500) });
    return res.ok && ((await res.json()) as { status?: string }).status === "ok";
  } catch {
    return false;
  }
}
