/** The stream figures as table rows, shared by the text summary and the HTML report. */
import type { Capacity } from "./recorder.js";
import type { SweepPoint } from "./recorder.js";

type Figures = Record<string, unknown>;

const METRICS = [
  { label: "TTFT (ms)", key: (p: string) => `ttft_${p}_ms` },
  { label: "end-to-end (ms)", key: (p: string) => `e2e_${p}_ms` },
  { label: "inter-token latency (ms)", key: (p: string) => `itl_${p}_ms` },
  { label: "output tokens/s per stream", key: (p: string) => `stream_tokens_per_s_${p}` },
  { label: "prompt tokens per request", key: (p: string) => `prompt_tokens_${p}` },
];
const PERCENTILES = ["p50", "p90", "p95", "p99"];

const cell = (v: unknown) => (typeof v === "number" ? String(Math.round(v * 10) / 10) : "–");

export const STREAM_HEADER = ["METRIC", "P50", "P90", "P95", "P99"];

export function streamRows(f: Figures): string[][] {
  return METRICS.map((m) => [m.label, ...PERCENTILES.map((p) => cell(f[m.key(p)]))]);
}

/** Aggregate throughput over the streams' wall time. */
export function throughputText(f: Figures): string {
  return `${cell(f.requests_per_s)} req/s · ${cell(f.output_tokens_per_s)} output tokens/s (${cell(f.output_tokens)} tokens in ${cell(f.wall_ms)} ms)`;
}

/** What a sweep found, in one line. */
export function capacityText(c: Capacity): string {
  const rate = (v: number | null, none: string) => (v === null ? none : `${cell(v)} req/s`);
  return `capacity: knee at ${rate(c.kneeRate, "– (none reached: raise --concurrency)")} · highest rate within every SLO: ${rate(c.maxSloRate, "none")} · throughput ${rate(c.throughputRate, "–")}`;
}

export const SWEEP_HEADER = [
  "OFFERED REQ/S",
  "ACHIEVED REQ/S",
  "OUTPUT TOK/S",
  "TTFT P50",
  "TTFT P95",
  "E2E P50",
  "E2E P95",
  "ITL P50",
  "ITL P95",
  "SLO",
  "VALID",
];

export function sweepRows(points: readonly SweepPoint[]): string[][] {
  return points.map(({ kind, rate, requests, valid, slo, figures: f }) => [
    kind && kind !== "rate" ? `${kind} ${cell(rate)}` : cell(rate),
    cell(f.requests_per_s),
    cell(f.output_tokens_per_s),
    cell(f.ttft_p50_ms),
    cell(f.ttft_p95_ms),
    cell(f.e2e_p50_ms),
    cell(f.e2e_p95_ms),
    cell(f.itl_p50_ms),
    cell(f.itl_p95_ms),
    slo ? (slo.met ? "met" : "missed") : "–",
    `${valid}/${requests}`,
  ]);
}
