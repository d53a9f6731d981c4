import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Polls `check` every 200 ms until it holds or `ms` passes; returns whether it held. */
async function eventually(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return check();
}

const answers = (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(2000) }).then(
    (r) => r.ok,
    () => false,
  );

describe("npm start", () => {
  it("stops the server when npm alone gets SIGTERM, instead of orphaning it", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "agentport-npm-start-"));
    const port = await freePort();
    const npm = spawn("npm", ["start"], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: "warn" },
      stdio: "ignore",
    });
    const health = `http://127.0.0.1:${port}/health`;
    try {
      expect(await eventually(() => answers(health), 60_000)).toBe(true);
      const serverPid = (JSON.parse(readFileSync(join(dataDir, "server.json"), "utf8")) as { pid: number }).pid;
      expect(serverPid).not.toBe(npm.pid);

      npm.kill("SIGTERM"); // to npm's pid only, as a supervisor that is not a terminal would send it

      expect(await eventually(() => !alive(serverPid), 20_000)).toBe(true);
      expect(await answers(health)).toBe(false);
    } finally {
      npm.kill("SIGKILL");
    }
  }, 90_000);
});
