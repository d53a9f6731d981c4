/**
 * Starting the real server process next to things that were there first: a busy port gets one
 * clear line and a prompt exit, and a stale server.json (its pid reused by another process, as
 * when a container restarts node as PID 1) does not block the start.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const listening = (port = 0) =>
  new Promise<Server>((resolve) => {
    const s = createServer().listen(port, "127.0.0.1", () => resolve(s));
  });
const portOf = (s: Server) => (s.address() as { port: number }).port;
/** A port nothing listens on now. */
const freePort = async () => {
  const s = await listening();
  const port = portOf(s);
  await new Promise((r) => s.close(r));
  return port;
};

/** Runs the server until it exits or prints its start line; bounded by `ms`. */
function startServer(env: Record<string, string>, ms = 60_000) {
  const child = spawn("node", ["--import", "tsx", "service/src/server.ts"], {
    env: { ...process.env, HOST: "127.0.0.1", JWT_SECRET: "x".repeat(64), LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise<{ code: number | null; started: boolean; stdout: string; stderr: string; stop(): void }>(
    (resolve) => {
      const done = (code: number | null, started: boolean) => {
        clearTimeout(timer);
        clearInterval(poll);
        resolve({ code, started, stdout, stderr, stop: () => child.kill("SIGTERM") });
      };
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        done(null, false);
      }, ms);
      const poll = setInterval(() => stdout.includes("agentport API on") && done(null, true), 100);
      child.on("exit", (code) => done(code, false));
    },
  );
}

describe("server start", () => {
  it(
    "on a busy port: one line naming the port and PORT, a non-zero exit, no server.json left",
    { timeout: 120_000 },
    async () => {
      const busy = await listening();
      const dataDir = mkdtempSync(join(tmpdir(), "agentport-start-"));
      try {
        const r = await startServer({ PORT: String(portOf(busy)), DATA_DIR: dataDir });
        expect(r.started).toBe(false);
        expect(r.code).toBe(1);
        expect(r.stderr.trim().split("\n")).toEqual([
          expect.stringMatching(new RegExp(`port ${portOf(busy)} is already in use; set PORT`)),
        ]);
        expect(existsSync(join(dataDir, "server.json"))).toBe(false);
        // Found before the embedded store's initdb: nothing was written into the data dir.
        expect(readdirSync(dataDir)).toEqual([]);
      } finally {
        busy.close();
      }
    },
  );

  it(
    "starts over a stale server.json whose pid is now another process and whose URL does not answer",
    { timeout: 120_000 },
    async () => {
      const deadUrl = `http://127.0.0.1:${await freePort()}`;
      const dataDir = mkdtempSync(join(tmpdir(), "agentport-start-"));
      // This test process is alive and is not an agentport server: the pid of an unrelated process.
      writeFileSync(join(dataDir, "server.json"), JSON.stringify({ pid: process.pid, url: deadUrl }));
      const port = await freePort();
      const r = await startServer({ PORT: String(port), DATA_DIR: dataDir });
      try {
        expect(r.stderr).not.toContain("Another agentport server");
        expect(r.started).toBe(true);
        const health = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(5000) });
        expect(health.status).toBe(200);
      } finally {
        r.stop();
      }
    },
  );

  it("still refuses a data dir held by a server that answers", { timeout: 120_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "agentport-start-"));
    const port = await freePort();
    const first = await startServer({ PORT: String(port), DATA_DIR: dataDir });
    try {
      expect(first.started).toBe(true);
      const second = await startServer({ PORT: "1", DATA_DIR: dataDir });
      expect(second.code).toBe(1);
      expect(second.stderr).toContain("Another agentport server holds");
    } finally {
      first.stop();
    }
  });
});
