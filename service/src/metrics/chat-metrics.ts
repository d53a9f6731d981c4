/**
 * What only the service knows about chat: completions by model and outcome, tokens by model,
 * open streams, time to first token and between tokens. Counted in plain maps and arrays on the
 * hot path, read by prom-client at scrape time.
 */
import { Counter, Gauge, type Registry } from "prom-client";
import { ModelHistogram } from "./model-histogram.js";

export type ChatOutcome = "ok" | "error" | "client_closed";

const OUTCOMES: readonly ChatOutcome[] = ["ok", "error", "client_closed"];
const MODES = ["json", "stream"] as const;
/** Slot in a model's counts: mode-major, then outcome. */
const slot = (stream: boolean, outcome: ChatOutcome) => (stream ? OUTCOMES.length : 0) + OUTCOMES.indexOf(outcome);

const FIRST_TOKEN_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const INTER_TOKEN_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** One stream's clock: its first content chunk is the time to first token, each later one an inter-token gap. */
export class StreamTiming {
  private last = -1;
  private readonly model: string;
  private readonly metrics: ChatMetrics;

  constructor(metrics: ChatMetrics, model: string) {
    this.metrics = metrics;
    this.model = model;
  }

  /** A content chunk is written, `elapsedMs` after the request arrived. */
  token(elapsedMs: number): void {
    if (this.last < 0) this.metrics.firstToken.record(this.model, elapsedMs / 1000);
    else this.metrics.interToken.record(this.model, (elapsedMs - this.last) / 1000);
    this.last = elapsedMs;
  }
}

export class ChatMetrics {
  readonly firstToken: ModelHistogram;
  readonly interToken: ModelHistogram;
  // model id → counts per (mode, outcome); ids come from resolved agents, so the set is bounded.
  private readonly completions = new Map<string, Float64Array>();
  // model id → [prompt, completion] tokens.
  private readonly tokenCounts = new Map<string, Float64Array>();
  private openStreams = 0;

  constructor(registry: Registry) {
    const { completions, tokenCounts } = this;
    const open = () => this.openStreams;
    new Counter({
      name: "agentport_chat_completions_total",
      help: "Chat completions by model, mode (json|stream) and outcome (ok|error|client_closed)",
      labelNames: ["model", "mode", "outcome"] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [model, counts] of completions) {
          counts.forEach((n, i) => {
            if (n > 0)
              this.inc(
                { model, mode: MODES[Math.floor(i / OUTCOMES.length)], outcome: OUTCOMES[i % OUTCOMES.length] },
                n,
              );
          });
        }
      },
    });
    new Counter({
      name: "agentport_chat_tokens_total",
      help: "Tokens of chat completions by model and direction (in: prompt, out: completion)",
      labelNames: ["model", "direction"] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [model, [prompt, completion]] of tokenCounts) {
          this.inc({ model, direction: "in" }, prompt);
          this.inc({ model, direction: "out" }, completion);
        }
      },
    });
    new Gauge({
      name: "agentport_chat_open_streams",
      help: "Chat completion streams open now",
      registers: [registry],
      collect() {
        this.set(open());
      },
    });
    this.firstToken = new ModelHistogram(
      "agentport_chat_time_to_first_token_seconds",
      "Time from a streaming request to its first content chunk, by model",
      FIRST_TOKEN_BUCKETS,
      registry,
    );
    this.interToken = new ModelHistogram(
      "agentport_chat_inter_token_latency_seconds",
      "Time between two content chunks of a stream, by model",
      INTER_TOKEN_BUCKETS,
      registry,
    );
  }

  /** One completion finished (JSON or stream). */
  completed(model: string, stream: boolean, outcome: ChatOutcome): void {
    let counts = this.completions.get(model);
    if (!counts) this.completions.set(model, (counts = new Float64Array(MODES.length * OUTCOMES.length)));
    counts[slot(stream, outcome)]++;
  }

  streamOpened(): void {
    this.openStreams++;
  }

  streamClosed(): void {
    this.openStreams--;
  }

  /** The clock of one stream of `model`. */
  streamTiming(model: string): StreamTiming {
    return new StreamTiming(this, model);
  }

  /** A completion's usage: prompt (in) and completion (out) tokens. */
  tokens(model: string, prompt: number, completion: number): void {
    let counts = this.tokenCounts.get(model);
    if (!counts) this.tokenCounts.set(model, (counts = new Float64Array(2)));
    counts[0] += prompt;
    counts[1] += completion;
  }
}
