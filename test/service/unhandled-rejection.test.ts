import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { startServerProcess, type ServerProcess } from "../helpers/server-process.js";

/**
 * A promise rejection nobody handled is logged and the replica keeps serving (the policy stated in
 * server.ts). The real entry point in a child process; a preloaded module rejects a promise,
 * unhandled, when the test sends it SIGUSR2.
 */
describe("an unhandled promise rejection", () => {
  let server: ServerProcess | undefined;
  afterAll(() => void server?.child.kill("SIGKILL"));

  it("is logged, and the server goes on answering", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentport-rejection-"));
    const preload = join(dir, "reject-on-signal.mjs");
    writeFileSync(
      preload,
      `process.on("SIGUSR2", () => void Promise.reject(new Error("stray rejection for the test")));\n`,
    );
    server = await startServerProcess({
      DATA_DIR: dir,
      LOG_LEVEL: "info",
      NODE_OPTIONS: `--import=${pathToFileURL(preload).href}`,
    });
    let out = "";
    server.child.stdout!.on("data", (d: Buffer) => (out += d));
    const logged = new Promise<void>((resolve) =>
      server!.child.stdout!.on("data", () => out.includes("stray rejection for the test") && resolve()),
    );
    server.child.kill("SIGUSR2");
    const outcome = await Promise.race([
      logged.then(() => "logged"),
      server.exited.then((code) => `exited with ${code}`),
      new Promise((r) => setTimeout(r, 15_000, "nothing within 15 s")),
    ]);
    expect(outcome).toBe("logged");
    const line = JSON.parse(out.split("\n").find((l) => l.includes("stray rejection"))!);
    expect(line).toMatchObject({ level: 50, msg: "unhandled promise rejection: logged, still serving" });
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    expect(server.child.exitCode).toBeNull();
  }, 120_000);
});
