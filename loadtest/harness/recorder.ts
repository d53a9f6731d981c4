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
  /** Prompt tokens as the server counted them (the usage chunk), for streams. */
  promptTokens?: number;
  /** The offered rate (req/s) of the sweep point the stream belongs to. */
  rate?: number;
  /**
   * Inter-token gaps this stream added to `interTokenMs[scenario]` (valid streams, in the order of
   * their samples): the gate resamples a stream's gaps together, as they are not independent.
   */
  interTokens?: number;
}

/**
 * How a point of a load profile was driven (GuideLLM's names): one stream at a time, as many as
 * the concurrency allows, or arrivals at an offered rate (evenly spaced or Poisson).
 */
/** What the sweep found: the knee and the highest rate that met every SLO. */
export interface Capacity {
  /** The rate (req/s) where TTFT p95 turns upward; null: the sweep reached no knee. */
  kneeRate: number | null;
  /** The highest rate (req/s) whose point met every SLO; null: none did. */
  maxSloRate: number | null;
  /** The throughput point's achieved rate: the most the target served at --concurrency. */
  throughputRate: number | null;
}

export type PointKind = "synchronous" | "throughput" | "rate";

/** The SLO judged on one point of a load profile. */
export interface PointSlo {
  met: boolean;
  /** The objectives it missed, e.g. "TTFT p95 812 ms > 800 ms". */
  missed: string[];
}

/** One point of a load profile (a rate of the sweep) and what the target made of it. */
export interface SweepPoint {
  /** Absent in reports before profiles: "rate". */
  kind?: PointKind;
  /** Requests per second: offered for a rate, achieved for a synchronous or throughput point. */
  rate: number;
  /** When the point began and ended, ms since the run began (the charts' boundaries). */
  startMs?: number;
  endMs?: number;
  slo?: PointSlo;
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
  /** What a sweep found (its knee, the highest rate within the SLO). */
  capacity: Capacity | null = null;
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

  /** A chat stream: its sample, and its inter-token gaps when it was valid; `rate`: its sweep point's. */
  addStream(scenario: string, out: StreamOutcome, rate?: number): void {
    const ok = out.report.ok;
    this.add({
      scenario,
      op: "chat.stream",
      startedAt: out.startedAt,
      latencyMs: out.e2eMs,
      ok,
      ttftMs: out.ttftMs,
      outputTokens: ok ? out.outputTokens : undefined,
      promptTokens: out.report.promptTokens,
      ...(ok ? { interTokens: out.interTokenMs.length } : {}),
      ...(rate === undefined ? {} : { rate }),
    });
    if (ok) (this.interTokenMs[scenario] ??= []).push(...out.interTokenMs.map((v) => Math.round(v * 1000) / 1000));
  }
}
