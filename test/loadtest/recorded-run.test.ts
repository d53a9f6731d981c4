/**
 * The recorded run the report tests render (`--local` with every scenario and a short `--profile
 * sweep`; the command is in docs/load-testing.md): it is what the current harness writes, so the
 * chart tests draw what a real run gives them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import type { RunReport } from "../../loadtest/harness/run-report.js";

const ROOT = join(import.meta.dirname, "../..");
const run = JSON.parse(readFileSync(join(import.meta.dirname, "fixtures/recorded-run.json"), "utf8")) as RunReport;

describe("the recorded run", () => {
  it("validates against the versioned report schema", () => {
    const schema = JSON.parse(readFileSync(join(ROOT, "loadtest/harness/report.schema.json"), "utf8")) as object;
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
    expect(validate(run), JSON.stringify(validate.errors?.slice(0, 5))).toBe(true);
    expect(run.schemaVersion).toBe(2);
  });

  it("holds what every chart draws: scenarios, a sweep with its knee, prompt tokens, a failure", () => {
    expect(run.scenarios.map((s) => s.id)).toEqual([
      "streaming",
      "idle-timeout",
      "files-load",
      "revocation",
      "rate-sweep",
    ]);
    expect(run.sweep.map((p) => p.kind)).toEqual(["synchronous", "throughput", "rate", "rate", "rate"]);
    expect(run.sweep.every((p) => p.slo && p.startMs !== undefined)).toBe(true);
    expect(run.capacity?.kneeRate).not.toBeNull();
    expect(run.samples.filter((s) => s.op === "chat.stream").every((s) => s.promptTokens! > 0)).toBe(true);
    expect(run.samples.some((s) => !s.ok)).toBe(true);
    // Enough inter-token gaps per scenario for the tail chart to reach p99.9.
    for (const gaps of Object.values(run.interTokenMs)) expect(gaps.length).toBeGreaterThanOrEqual(1000);
  });
});
