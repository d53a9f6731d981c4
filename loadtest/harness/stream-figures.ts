/**
 * The figures users compare across tools (GuideLLM, LLMPerf) for a set of streams: requests and
 * output tokens per second over the set's wall time, tokens per second of each stream (its
 * output tokens over its end-to-end time, as LLMPerf's request_output_throughput), and TTFT,
 * end-to-end and inter-token percentiles. Only valid streams count: a cut stream's timings
 * describe the failure, not the service.
 */
import type { StreamOutcome } from "./stream-client.js";
import { summarize, summaryFigures } from "./stats.js";

export type StreamFigures = Record<string, number | null>;

/** Rounded down: a rate shown as 2.01 for an offered 2 would read as more than was offered. */
const rate = (n: number, ms: number) => (ms > 0 ? Math.floor((n / (ms / 1000)) * 100) / 100 : null);

/**
 * `minWallMs`: the time the streams were offered over (a sweep's rate: count ÷ rate). Dividing by
 * at least that keeps achieved ≤ offered: first-start-to-last-end is shorter than the offered
 * window whenever a stream takes less than the gap between arrivals.
 */
export function streamFigures(streams: readonly StreamOutcome[], minWallMs = 0): StreamFigures {
  const valid = streams.filter((s) => s.report.ok);
  const spanMs = streams.length
    ? Math.max(...streams.map((s) => s.endedAt)) - Math.min(...streams.map((s) => s.startedAt))
    : 0;
  const wallMs = Math.max(spanMs, minWallMs);
  const tokens = valid.reduce((a, s) => a + s.outputTokens, 0);
  return {
    wall_ms: Math.round(wallMs),
    error_rate: streams.length ? Math.round(((streams.length - valid.length) / streams.length) * 10000) / 10000 : null,
    requests_per_s: rate(valid.length, wallMs),
    output_tokens: tokens,
    output_tokens_per_s: rate(tokens, wallMs),
    ...summaryFigures("ttft", summarize(valid.flatMap((s) => (s.ttftMs === undefined ? [] : [s.ttftMs])))),
    ...summaryFigures("e2e", summarize(valid.map((s) => s.e2eMs))),
    ...summaryFigures("itl", summarize(valid.flatMap((s) => s.interTokenMs))),
    ...summaryFigures("stream_tokens_per_s", summarize(valid.map((s) => s.outputTokens / (s.e2eMs / 1000))), ""),
    // The prompt as the server counted it (the usage chunk): checks --data prompt_tokens=N.
    ...summaryFigures(
      "prompt_tokens",
      summarize(valid.flatMap((s) => (s.report.promptTokens === undefined ? [] : [s.report.promptTokens]))),
      "",
    ),
  };
}
