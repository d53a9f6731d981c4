/**
 * Checks that a chat completion stream is what the OpenAI SDKs accept: role in the first
 * delta, one id, `finish_reason: "stop"` on the last choice chunk (an optional usage chunk
 * with `choices: []` after it), then `data: [DONE]` and nothing else. A stream that mixes
 * ids or re-announces the role is interleaved; one without [DONE] is truncated.
 */
import type { SseEvent } from "./sse-events.js";

export interface StreamExpectation {
  /** The `model` every chunk must carry. */
  model?: string;
  /** Exact number of chunks with non-empty content (synthetic agents know it). */
  contentChunks?: number;
}

export interface StreamReport {
  ok: boolean;
  errors: string[];
  id?: string;
  /** Data events that parsed as chunks. */
  chunks: number;
  contentChunks: number;
  heartbeats: number;
  text: string;
  finishReason: string | null;
  done: boolean;
  /** Arrival time of each content chunk (the caller's clock). */
  contentTimes: number[];
  /** Characters of each content chunk, in the order of `contentTimes`. */
  contentChars: number[];
  /** `usage.completion_tokens` of the usage chunk, when the server sent one. */
  completionTokens?: number;
  /** `usage.prompt_tokens` of the usage chunk: the prompt as the server counted it. */
  promptTokens?: number;
  doneAt?: number;
}

/** A value off the wire as a report shows it: strings as they are, anything else as its JSON. */
const shown = (value: unknown): string =>
  typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));

interface Chunk {
  id?: unknown;
  object?: unknown;
  model?: unknown;
  choices?: Array<{ index?: unknown; delta?: { role?: unknown; content?: unknown }; finish_reason?: unknown }>;
  usage?: { completion_tokens?: unknown; prompt_tokens?: unknown };
  error?: { message?: unknown };
}

export function validateStream(events: readonly SseEvent[], expect: StreamExpectation = {}): StreamReport {
  const errors: string[] = [];
  const report: StreamReport = {
    ok: false,
    errors,
    chunks: 0,
    contentChunks: 0,
    heartbeats: 0,
    text: "",
    finishReason: null,
    done: false,
    contentTimes: [],
    contentChars: [],
  };
  let finished = false;
  let chunkIndex = 0;

  for (const ev of events) {
    if (ev.kind === "comment") {
      report.heartbeats++;
      continue;
    }
    if (report.done) {
      errors.push("data after [DONE]");
      break;
    }
    if (ev.data === "[DONE]") {
      report.done = true;
      report.doneAt = ev.at;
      continue;
    }
    let chunk: Chunk;
    try {
      chunk = JSON.parse(ev.data) as Chunk;
    } catch {
      errors.push(`chunk ${chunkIndex} is not JSON: ${ev.data.slice(0, 80)}`);
      break;
    }
    if (chunk.error) {
      errors.push(`error event: ${shown(chunk.error.message ?? "no message")}`);
      break;
    }
    report.chunks++;
    const at = `chunk ${chunkIndex}`;
    if (chunk.object !== "chat.completion.chunk") errors.push(`${at}: object is ${shown(chunk.object)}`);
    if (typeof chunk.id !== "string" || !chunk.id) errors.push(`${at}: no id`);
    else if (report.id === undefined) report.id = chunk.id;
    else if (chunk.id !== report.id) errors.push(`${at}: id ${chunk.id} differs from ${report.id} (interleaved)`);
    if (expect.model !== undefined && chunk.model !== expect.model) errors.push(`${at}: model ${shown(chunk.model)}`);

    const choices = Array.isArray(chunk.choices) ? chunk.choices : undefined;
    if (!choices) errors.push(`${at}: no choices array`);
    else if (choices.length === 0) {
      // Only the usage chunk may have no choices, and only after the finish chunk.
      if (!finished) errors.push(`${at}: empty choices before finish_reason`);
      const tokens = chunk.usage?.completion_tokens;
      if (typeof tokens === "number") report.completionTokens = tokens;
      const prompt = chunk.usage?.prompt_tokens;
      if (typeof prompt === "number") report.promptTokens = prompt;
    } else {
      if (finished) errors.push(`${at}: choice chunk after finish_reason`);
      const choice = choices[0];
      if (choice.index !== 0) errors.push(`${at}: choice index ${shown(choice.index)}`);
      const delta = choice.delta ?? {};
      if (chunkIndex === 0 && delta.role !== "assistant") errors.push("first chunk has no role 'assistant'");
      if (chunkIndex > 0 && delta.role !== undefined) errors.push(`${at}: role repeated (interleaved)`);
      if (typeof delta.content === "string" && delta.content.length > 0) {
        report.contentChunks++;
        report.text += delta.content;
        report.contentTimes.push(ev.at);
        report.contentChars.push([...delta.content].length);
      }
      const reason = choice.finish_reason ?? null;
      if (reason !== null) {
        finished = true;
        report.finishReason = shown(reason);
        if (reason !== "stop") errors.push(`${at}: finish_reason ${shown(reason)}`);
      }
    }
    chunkIndex++;
  }

  if (report.chunks === 0 && errors.length === 0) errors.push("no chunks");
  if (!finished && errors.length === 0) errors.push("no finish_reason (truncated)");
  if (!report.done && errors.length === 0) errors.push("no [DONE] (truncated)");
  if (expect.contentChunks !== undefined && errors.length === 0 && report.contentChunks !== expect.contentChunks) {
    errors.push(`${report.contentChunks} content chunks, expected ${expect.contentChunks} (truncated)`);
  }
  report.ok = errors.length === 0;
  return report;
}
