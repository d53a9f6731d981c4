/** Every timed operation of a run, kept for the report's plots and the JSON output. */
import type { StreamOutcome } from "./stream-client.js";

export interface Sample {
  scenario: string;
  /** Operation name, e.g. "chat.stream", "files.upload". */
  op: string;
  /** Start, ms since the run began. */
  at: number;
  latencyMs: number;
  ok: boolean;
  /** Time to first token, for streams. */
  ttftMs?: number;
  /** Output tokens, for streams. */
  outputTokens?: number;
}

/** One offered rate of the sweep and what the target made of it. */
export interface SweepPoint {
  /** Requests per second offered (constant arrivals). */
  rate: number;
  requests: number;
  valid: number;
  /** The stream figures at that rate (see stream-figures.ts). */
  figures: Record<string, number | null>;
}

export class Recorder {
  readonly samples: Sample[] = [];
  /** Inter-token latencies of valid streams, ms, by scenario. */
  readonly interTokenMs: Record<string, number[]> = {};
  readonly sweep: SweepPoint[] = [];
  readonly origin: number;
  constructor(origin = performance.now()) {
    this.origin = origin;
  }

  /** ms since the run began for a performance.now() instant. */
  since(t: number): number {
    return t - this.origin;
  }

  add(sample: Omit<Sample, "at"> & { startedAt: number }): void {
    const { startedAt, ...rest } = sample;
    this.samples.push({ ...rest, at: Math.round(this.since(startedAt) * 100) / 100 });
  }

  /** A chat stream: its sample, and its inter-token gaps when it was valid. */
  addStream(scenario: string, out: StreamOutcome): void {
    const ok = out.report.ok;
    this.add({
      scenario,
      op: "chat.stream",
      startedAt: out.startedAt,
      latencyMs: out.e2eMs,
      ok,
      ttftMs: out.ttftMs,
      outputTokens: ok ? out.outputTokens : undefined,
    });
    if (ok) (this.interTokenMs[scenario] ??= []).push(...out.interTokenMs.map((v) => Math.round(v * 1000) / 1000));
  }
}
