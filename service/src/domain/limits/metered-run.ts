/**
 * One agent run's metering, whatever its entry point (chat JSON, chat SSE, an MCP `ask_*` tool):
 * reserved before it starts (plugins/key-limits.ts), fed the events the caller relays, and ended
 * once however the run ends. At its end it records the usage, the chat metrics, and settles the
 * key's token window to the actual tokens (a refund when the estimate was larger).
 *
 * The actual tokens are the agent's reported usage when it arrived; otherwise (a client gone, an
 * error, a shutdown before the usage) the prompt's estimate plus the tokens relayed so far,
 * counted from their characters like the estimate.
 *
 * Its cost is its tokens × its agent's price (domain/spend/cost.ts), recorded with the usage and
 * settled against the budgets it reserved its estimated cost in, beside the tokens.
 */
import type { AgentEvent } from "../agents/types.js";
import type { UsageRecord } from "../usage/usage-meter.js";
import type { ChatOutcome } from "../../metrics/chat-metrics.js";
import type { KeyLimiter, Reserved } from "./key-limiter.js";
import { tokensOfChars, type RunEstimate } from "./estimate.js";
import { runCost, type Price, type RunCost } from "../spend/cost.js";

export interface MeterSinks {
  limiter: KeyLimiter;
  usage: { record(usage: UsageRecord): void };
  chat: {
    completed(model: string, stream: boolean, outcome: ChatOutcome): void;
    tokens(model: string, prompt: number, completion: number): void;
  };
  /** A run's cost, for the spend counter per project and model. */
  spend(projectId: string, model: string, micros: number): void;
}

export interface RunOwner {
  keyId: string;
  projectId: string;
}

export interface RunUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Of the prompt tokens, those the upstream served from its cache (when it said so). */
  cached_tokens?: number;
}

/** What a run reserved: its key's window and budgets, and the cost it reserved in them. */
export interface RunReservation {
  reserved: Reserved | undefined;
  /** The agent's price; undefined: the agent has none, its runs cost 0. */
  price?: Price;
  /** The estimated cost reserved in the budgets (micro-dollars). */
  cost: number;
}

export class MeteredRun {
  private relayedChars = 0;
  private reported?: RunUsage;
  private ended = false;
  private readonly sinks: MeterSinks;
  private readonly owner: RunOwner;
  private readonly model: string;
  private readonly estimate: RunEstimate;
  /** The key's reservation; undefined for a key without a token limit or budget (nothing to settle). */
  private readonly reserved: Reserved | undefined;
  /** Whether the reservation holds the token estimate (a key with a token limit). */
  private readonly tokensReserved: boolean;
  private readonly price: Price | undefined;
  private readonly costReserved: number;

  constructor(
    sinks: MeterSinks,
    owner: RunOwner,
    model: string,
    estimate: RunEstimate,
    reservation: RunReservation,
    tokensReserved = reservation.reserved !== undefined,
  ) {
    this.sinks = sinks;
    this.owner = owner;
    this.model = model;
    this.estimate = estimate;
    this.reserved = reservation.reserved;
    this.price = reservation.price;
    this.costReserved = reservation.cost;
    this.tokensReserved = tokensReserved;
  }

  /** What the agent produced or reported, as the caller relays it. */
  saw(event: AgentEvent): void {
    switch (event.type) {
      case "content":
        this.relayedChars += event.text.length;
        break;
      case "contents":
        for (const text of event.texts) this.relayedChars += text.length;
        break;
      case "chunks":
      case "completion":
        this.relayedChars += event.text.length;
        break;
      case "tool_calls":
        // The model wrote the calls' names and arguments: they are output tokens like text.
        this.relayedChars += JSON.stringify(event.toolCalls).length;
        break;
      case "usage":
        this.reported = {
          prompt_tokens: event.promptTokens,
          completion_tokens: event.completionTokens,
          total_tokens: event.promptTokens + event.completionTokens,
          ...(event.cachedTokens !== undefined && { cached_tokens: event.cachedTokens }),
        };
        break;
      case "answering":
      case "finish":
        break;
    }
  }

  /** The usage to report: the agent's, else what was produced so far. */
  get usage(): RunUsage {
    if (this.reported) return this.reported;
    const completion = tokensOfChars(this.relayedChars);
    return {
      prompt_tokens: this.estimate.prompt,
      completion_tokens: completion,
      total_tokens: this.estimate.prompt + completion,
    };
  }

  /** The run's cost so far: its usage × its agent's price. */
  get cost(): RunCost {
    const usage = this.usage;
    return runCost(this.price, {
      prompt: usage.prompt_tokens,
      cached: usage.cached_tokens,
      completion: usage.completion_tokens,
    });
  }

  /** The run is over, by any cause: record and settle once. */
  end(outcome: ChatOutcome, streamed: boolean): void {
    if (this.ended) return;
    this.ended = true;
    const { sinks, model, owner } = this;
    sinks.chat.completed(model, streamed, outcome);
    const usage = this.usage;
    const cost = this.cost;
    sinks.chat.tokens(model, usage.prompt_tokens, usage.completion_tokens);
    sinks.usage.record({
      projectId: owner.projectId,
      keyId: owner.keyId,
      model,
      inputTokens: usage.prompt_tokens,
      outputTokens: usage.completion_tokens,
      inputCost: cost.input,
      outputCost: cost.output,
    });
    if (cost.input + cost.output > 0) sinks.spend(owner.projectId, model, cost.input + cost.output);
    if (this.reserved)
      sinks.limiter.settle(
        this.reserved,
        owner.keyId,
        this.tokensReserved ? usage.total_tokens - this.estimate.prompt - this.estimate.completion : 0,
        cost.input + cost.output - this.costReserved,
      );
  }
}
