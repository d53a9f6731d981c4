/** Every timed operation of a run, kept for the report's plots and the JSON output. */

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
}

export class Recorder {
  readonly samples: Sample[] = [];
  readonly interChunkMs: number[] = [];
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
}
