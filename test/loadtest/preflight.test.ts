/**
 * The harness checks the target before any load: an unreachable target, a refused key or a model
 * the key does not see each stop it with one line and exit 2; a real run that misses a budget
 * exits 1.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../helpers/app.js";
import { listen } from "../helpers/openai-client.js";

const ROOT = join(import.meta.dirname, "../..");
const CLI = join(ROOT, "loadtest/harness/cli.ts");

function harness(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", CLI, ...args],
      { cwd: ROOT, timeout: 60_000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

describe("load-test preflight", () => {
  let t: TestApp;
  let base: string;
  let key: string;
  beforeAll(async () => {
    const agents = join(tmpdir(), `agents-preflight-${process.pid}.json`);
    writeFileSync(
      agents,
      JSON.stringify({ agents: [{ id: "slow", kind: "synthetic", tokens: 20, interval_ms: 10, silence_ms: 50 }] }),
    );
    t = await buildTestApp("pglite", { AGENTS_FILE: agents });
    base = (await listen(t.app)).replace(/\/v1$/, "");
    key = (await t.createKey()).secret;
  });
  afterAll(() => t.close());

  const run = (...args: string[]) =>
    harness([
      "--scenarios",
      "streaming",
      "--requests",
      "2",
      "--ceiling-seconds",
      "0",
      "--stream-model",
      "agentport/slow",
      ...args,
    ]);

  it("stops with one line and exit 2 when the target does not answer", async () => {
    const r = await run("--target", "http://127.0.0.1:9", "--key", key);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(/^preflight: http:\/\/127\.0\.0\.1:9 is not reachable \(ECONNREFUSED/);
    // The plan is announced, and nothing else: no scenario ran.
    expect(r.stdout).toMatch(/^plan for http:\/\/127\.0\.0\.1:9:\n/);
    expect(r.stdout).not.toMatch(/PASS|FAIL/);
  });

  it("stops with exit 2 when the key is refused, before any request of the run", async () => {
    const r = await run("--target", base, "--key", "ap-" + "x".repeat(43));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^preflight: the key is refused by .* \(401 invalid_api_key\)/);
  });

  it("stops with exit 2 when the key does not see the streaming model", async () => {
    const r = await run("--target", base, "--key", key, "--stream-model", "agentport/nope");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^preflight: the model 'agentport\/nope' is not served to this key \(it sees: .*agentport\/slow.*\); pass --stream-model$/m,
    );
  });

  it("runs when all is well, exits 1 when only the TTFT budget is missed, and writes JUnit and CSV for CI", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentport-outputs-"));
    const r = await run(
      "--target",
      base,
      "--key",
      key,
      "--stream-tokens",
      "20",
      "--ttft-p95-ms",
      "1",
      "--junit",
      join(dir, "checks.xml"),
      "--csv",
      join(dir, "samples.csv"),
    );
    expect(r.stdout).toMatch(/^streaming\s+FAIL/m);
    expect(r.code).toBe(1);

    const xml = readFileSync(join(dir, "checks.xml"), "utf8");
    const cases = [...xml.matchAll(/<testcase [^>]*name="([^"]+)"[^>]*>([\s\S]*?)<\/testcase>/g)];
    expect(cases.length).toBeGreaterThan(2);
    const failed = cases.filter(([, , body]) => body.includes("<failure"));
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.map(([, name]) => name)).toEqual(["TTFT p95 &lt;= 1 ms"]);
    expect(xml).toMatch(/<testsuite [^>]*failures="[1-9]/);

    const [header, ...rows] = readFileSync(join(dir, "samples.csv"), "utf8").trim().split("\n");
    expect(header).toBe("scenario,op,at_ms,latency_ms,ttft_ms,prompt_tokens,output_tokens,rate,ok");
    expect(rows).toHaveLength(2);
    // Prompt tokens as the usage chunk reported them; no rate outside a sweep.
    for (const row of rows) expect(row).toMatch(/^streaming,chat\.stream,[\d.]+,[\d.]+,[\d.]+,[1-9]\d*,20,,true$/);
  });
});
