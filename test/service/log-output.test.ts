import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startServerProcess, type ServerProcess } from "../helpers/server-process.js";

/** Log lines are written in batches (service/src/http/log-destination.ts): none may be held for long or lost at exit. */
describe("log output of the real server", () => {
  let server: ServerProcess | undefined;
  afterEach(() => {
    server?.child.kill("SIGKILL");
    server = undefined;
  });

  async function start(): Promise<{ server: ServerProcess; lines: () => Array<Record<string, unknown>> }> {
    const s = await startServerProcess({ DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-logs-")) });
    let out = "";
    s.child.stdout!.on("data", (d: Buffer) => (out += d));
    server = s;
    return {
      server: s,
      lines: () =>
        out
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>),
    };
  }

  it(
    "writes a quiet server's access line within a couple of seconds, not when a batch fills",
    { timeout: 60_000 },
    async () => {
      const { server: s, lines } = await start();
      expect((await fetch(`${s.url}/v1/models`)).status).toBe(401);
      await vi.waitFor(
        () => expect(lines().some((l) => (l.req as { url?: string } | undefined)?.url === "/v1/models")).toBe(true),
        { timeout: 5_000, interval: 50 },
      );
    },
  );

  it("writes every line before it exits on SIGTERM", { timeout: 60_000 }, async () => {
    const { server: s, lines } = await start();
    for (let i = 0; i < 3; i++) expect((await fetch(`${s.url}/v1/models?n=${i}`)).status).toBe(401);
    s.child.kill("SIGTERM");
    expect(await s.exited).toBe(0);
    const urls = lines().map((l) => (l.req as { url?: string } | undefined)?.url);
    expect(urls).toEqual(expect.arrayContaining(["/v1/models?n=0", "/v1/models?n=1", "/v1/models?n=2"]));
    expect(lines().some((l) => l.signal === "SIGTERM")).toBe(true);
  });

  it("still exits on SIGTERM when nothing reads its stdout any more", { timeout: 60_000 }, async () => {
    const { server: s } = await start();
    // The reader goes away (a closed terminal, a dead parent) while lines wait in the batch.
    s.child.stdout!.destroy();
    expect((await fetch(`${s.url}/v1/models`)).status).toBe(401);
    s.child.kill("SIGTERM");
    const code = await Promise.race([s.exited, new Promise((r) => setTimeout(() => r("still running"), 20_000))]);
    expect(code).toBe(0);
  });
});
