/**
 * Every summary of a run in one shape (stats.ts's Summary: count, min, p50, p90, p95, p99, max,
 * mean), per group of streams — a scenario, or one point of a load profile ("rate-sweep@12.5") —
 * per metric. The JSON report carries them under `summaries`, described by report.schema.json,
 * so another tool reads a run without knowing the harness's figure names.
 */
import type { Sample } from "./recorder.js";
import type { RunReport } from "./run-report.js";
import { summarize, type Summary } from "./stats.js";

/** The report's schema version: 2 added samples' prompt tokens, rates and gaps, profiles, summaries. */
export const SCHEMA_VERSION = 2;

export const SUMMARY_METRICS = [
  "ttft_ms",
  "e2e_ms",
  "itl_ms",
  "prompt_tokens",
  "output_tokens",
  "stream_tokens_per_s",
] as const;
export type SummaryMetric = (typeof SUMMARY_METRICS)[number];

function groupSummaries(streams: readonly Sample[], gaps: readonly number[]): Record<SummaryMetric, Summary> {
  const ok = streams.filter((s) => s.ok);
  const defined = (values: Array<number | undefined>) => values.filter((v): v is number => v !== undefined);
  return {
    ttft_ms: summarize(defined(ok.map((s) => s.ttftMs))),
    e2e_ms: summarize(ok.map((s) => s.latencyMs)),
    itl_ms: summarize(gaps),
    prompt_tokens: summarize(defined(ok.map((s) => s.promptTokens))),
    output_tokens: summarize(defined(ok.map((s) => s.outputTokens))),
    stream_tokens_per_s: summarize(
      ok.flatMap((s) => (s.outputTokens && s.latencyMs > 0 ? [s.outputTokens / (s.latencyMs / 1000)] : [])),
    ),
  };
}

/** Summaries of each scenario's streams and of each point of a load profile. */
export function runSummaries(
  r: Pick<RunReport, "samples" | "interTokenMs" | "sweep">,
): Record<string, Record<SummaryMetric, Summary>> {
  const streams = r.samples.filter((s) => s.op === "chat.stream");
  const out: Record<string, Record<SummaryMetric, Summary>> = {};
  for (const scenario of new Set(streams.map((s) => s.scenario)))
    out[scenario] = groupSummaries(
      streams.filter((s) => s.scenario === scenario),
      r.interTokenMs[scenario] ?? [],
    );
  for (const p of r.sweep)
    out[`rate-sweep@${p.rate}`] = groupSummaries(
      streams.filter((s) => s.scenario === "rate-sweep" && s.rate === p.rate),
      [],
    );
  return out;
}
