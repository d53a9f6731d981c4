/**
 * `--profile sweep` against a paced local agent whose capacity is planted by a concurrency limit
 * (4 streams at once, 200 ms each: 20 streams/s): the sweep finds the knee near that capacity and
 * the highest rate within the SLO below it; the run's JSON report validates against the schema.
 * Bounded: at most 7 points × 40 streams, a few seconds each, to 127.0.0.1.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseHarnessArgs } from "../../loadtest/harness/args.js";
import type { RunReport } from "../../loadtest/harness/run-report.js";
import { startPacedAgent, type PacedAgent } from "./paced-agent.js";

const ROOT = join(import.meta.dirname, "../..");
const dir = mkdtempSync(join(tmpdir(), "agentport-sweep-"));
let agent: PacedAgent;
let report: RunReport;
let stdout: string;

beforeAll(async () => {
  agent = await startPacedAgent({ limit: 4, prefillMs: 100, tokens: 11, intervalMs: 10 });
  const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      [
        "--import",
        "tsx",
        join(ROOT, "loadtest/harness/cli.ts"),
        ...["--target", agent.url, "--key", "k", "--stream-model", agent.model, "--stream-tokens", "11"],
        ...["--profile", "sweep", "--concurrency", "12", "--requests", "40", "--rate-seconds", "2"],
        ...["--sweep-points", "5", "--warmup", "0", "--ceiling-seconds", "0", "--max-duration", "120"],
        // The SLO: TTFT p95 within 2.5 prefills; a stream that waits for a slot misses it.
        ...["--ttft-p95-ms", "250", "--json", join(dir, "report.json"), "--csv", join(dir, "samples.csv")],
      ],
      { cwd: ROOT, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
  stdout = run.stdout;
  if (run.code === 2) throw new Error(run.stderr);
  report = JSON.parse(readFileSync(join(dir, "report.json"), "utf8")) as RunReport;
}, 300_000);

afterAll(async () => {
  await agent?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("--profile sweep", () => {
  it("runs synchronous, then throughput, then rates between them", () => {
    const kinds = report.sweep.map((p) => p.kind);
    expect(kinds).toEqual(["synchronous", "throughput", "rate", "rate", "rate", "rate", "rate"]);
    const [sync, throughput] = report.sweep;
    // One stream at a time: at most 1 ÷ 200 ms; the throughput point gains from the four slots but is
    // held to the planted capacity (on a loaded machine the agent's timers run late: less than that).
    expect(sync.rate).toBeLessThan(6);
    expect(throughput.rate).toBeGreaterThan(sync.rate * 1.5);
    expect(throughput.rate).toBeLessThanOrEqual(agent.capacity * 1.05);
    const rates = report.sweep.slice(2).map((p) => p.rate);
    expect(rates.at(-1)).toBe(throughput.rate);
    expect([...rates].sort((a, b) => a - b)).toEqual(rates);
    expect(rates[0]).toBeGreaterThan(sync.rate);
  });

  it("finds the knee near the planted capacity, and the highest rate within the SLO below it", () => {
    const { kneeRate, maxSloRate } = report.capacity!;
    expect(kneeRate).not.toBeNull();
    // Where the measured capacity (the throughput point) lies, never above the planted one.
    expect(kneeRate!).toBeGreaterThanOrEqual(report.capacity!.throughputRate! * 0.5);
    expect(kneeRate!).toBeLessThanOrEqual(agent.capacity * 1.05);
    expect(maxSloRate).not.toBeNull();
    expect(maxSloRate!).toBeLessThanOrEqual(agent.capacity * 1.05);
    // Twelve in flight against four slots: streams wait for a slot, and TTFT p95 misses the SLO.
    expect(report.sweep[1].slo!.met).toBe(false);
    expect(report.sweep[0].slo!.met).toBe(true);
    expect(stdout).toMatch(/knee at [\d.]+ req\/s/);
  });

  it("the JSON report validates against the versioned schema, with prompt tokens per request", () => {
    const schema = JSON.parse(readFileSync(join(ROOT, "loadtest/harness/report.schema.json"), "utf8")) as object;
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    const validate = ajv.compile(schema);
    expect(validate(report), JSON.stringify(validate.errors?.slice(0, 5))).toBe(true);
    expect(validate({ ...report, schemaVersion: 1 })).toBe(false);
    expect(report.summaries!["rate-sweep@" + report.sweep[2].rate].prompt_tokens).toMatchObject({ p50: 9 });
    expect(report.samples.every((s) => s.promptTokens === 9 && s.rate !== undefined)).toBe(true);
    const csv = readFileSync(join(dir, "samples.csv"), "utf8").split("\n");
    expect(csv[0]).toBe("scenario,op,at_ms,latency_ms,ttft_ms,prompt_tokens,output_tokens,rate,ok");
    expect(csv[1]).toMatch(/^rate-sweep,chat\.stream,[\d.]+,[\d.]+,[\d.]+,9,11,[\d.]+,true$/);
  });
});

describe("--profile flags", () => {
  it("constant and poisson need rates; the others find their own; alone, a profile runs without the scenarios", () => {
    const base = ["--target", "http://127.0.0.1:1", "--key", "k"];
    expect(() => parseHarnessArgs([...base, "--profile", "constant"])).toThrow(/needs --rates/);
    expect(() => parseHarnessArgs([...base, "--profile", "sweep", "--rates", "1,2"])).toThrow(/finds its own rates/);
    expect(() => parseHarnessArgs([...base, "--profile", "knee"])).toThrow(/one of sweep, synchronous/);
    expect(parseHarnessArgs([...base, "--profile", "sweep"]).scenarios).toEqual(["rate-sweep"]);
    expect(parseHarnessArgs([...base, "--profile", "poisson", "--rates", "3"]).arrivals).toBe("poisson");
  });
});
