/**
 * What CI and spreadsheets read: JUnit XML (each scenario a suite, each check a test case, so a
 * failed check shows as a failed test) with junit-report-builder, and the per-request samples as
 * CSV with csv-stringify.
 */
import junitExport, { type Builder } from "junit-report-builder";
import { stringify } from "csv-stringify/sync";
import type { RunReport } from "./run-report.js";

// Its types declare an ES default export; at run time its CommonJS exports are the builder itself.
const junit = ((junitExport as { default?: Builder }).default ?? junitExport) as Builder;

export function junitXml(report: RunReport): string {
  const builder = junit.newBuilder().name(`agentport load test (${report.target})`);
  for (const scenario of report.scenarios) {
    const suite = builder
      .testSuite()
      .name(scenario.title)
      .time(scenario.durationMs / 1000)
      .timestamp(report.startedAt);
    if (scenario.verdict === "skip") {
      suite
        .testCase()
        .className(scenario.id)
        .name(scenario.title)
        .skipped()
        .standardOutput(scenario.note ?? "");
      continue;
    }
    for (const check of scenario.checks) {
      const test = suite.testCase().className(scenario.id).name(check.name).standardOutput(check.detail);
      if (!check.ok) test.failure(check.detail, "threshold");
    }
  }
  return builder.build();
}

const COLUMNS = [
  "scenario",
  "op",
  "at_ms",
  "latency_ms",
  "ttft_ms",
  "prompt_tokens",
  "output_tokens",
  "rate",
  "ok",
] as const;

export function samplesCsv(report: RunReport): string {
  return stringify(
    report.samples.map((s) => [
      s.scenario,
      s.op,
      s.at.toFixed(1),
      s.latencyMs.toFixed(3),
      s.ttftMs?.toFixed(3) ?? "",
      s.promptTokens ?? "",
      s.outputTokens ?? "",
      s.rate ?? "",
      s.ok,
    ]),
    { header: true, columns: [...COLUMNS], cast: { boolean: (b) => String(b) } },
  );
}
