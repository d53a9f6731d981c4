/**
 * A streamed response's events, in OpenAI's order, from an answer's chat-shaped deltas:
 * `response.created`, `response.in_progress`; per output item `response.output_item.added`, for a
 * message `response.content_part.added`, `response.output_text.delta`…, `response.output_text.done`,
 * `response.content_part.done`, for a function call `response.function_call_arguments.delta`…,
 * `.done`; then `response.output_item.done`; last `response.completed` (or `.incomplete`, `.failed`).
 * Every event carries the next `sequence_number`; the last carries the whole response.
 */
import { newId } from "./ids.js";
import { failed, finished } from "./response-object.js";
import type { OutputItem, OutputText, ResponseObject, ResponseUsage, StreamEvent } from "./types.js";

/** The most characters of output one response holds (text and arguments): what a JSON answer may be. */
export const MAX_OUTPUT_CHARS = 32 * 1024 * 1024;

export class OutputTooLarge extends Error {}

type Message = Extract<OutputItem, { type: "message" }>;
type Call = Extract<OutputItem, { type: "function_call" }>;

/** A chat tool-call delta as upstreams stream it. */
export interface ToolCallDelta {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

export class ResponseEvents {
  private seq = 0;
  private chars = 0;
  private readonly output: OutputItem[] = [];
  private message?: { item: Message; part: OutputText };
  private readonly calls = new Map<number, Call>();
  private refusal = "";
  private response: ResponseObject;

  constructor(response: ResponseObject) {
    this.response = response;
  }

  private event(type: string, fields: Record<string, unknown>): StreamEvent {
    return { type, sequence_number: this.seq++, ...fields };
  }

  private grow(chars: number): void {
    this.chars += chars;
    if (this.chars > MAX_OUTPUT_CHARS) throw new OutputTooLarge(`the answer was over ${MAX_OUTPUT_CHARS} characters`);
  }

  start(): StreamEvent[] {
    return [
      this.event("response.created", { response: this.response }),
      this.event("response.in_progress", { response: this.response }),
    ];
  }

  text(delta: string): StreamEvent[] {
    if (!delta) return [];
    this.grow(delta.length);
    const events = this.message ? [] : this.openMessage();
    const { item, part } = this.message!;
    part.text += delta;
    events.push(
      this.event("response.output_text.delta", {
        item_id: item.id,
        output_index: this.output.indexOf(item),
        content_index: 0,
        delta,
        logprobs: [],
      }),
    );
    return events;
  }

  refused(delta: string): void {
    this.grow(delta.length);
    this.refusal += delta;
  }

  toolCall(delta: ToolCallDelta): StreamEvent[] {
    const events = this.closeMessage();
    const key = delta.index ?? this.calls.size;
    let call = this.calls.get(key);
    if (!call) {
      call = {
        type: "function_call",
        id: newId("fc"),
        call_id: delta.id ?? newId("fc"),
        name: delta.function?.name ?? "",
        arguments: "",
        status: "in_progress",
      };
      this.calls.set(key, call);
      this.output.push(call);
      events.push(
        this.event("response.output_item.added", { output_index: this.output.length - 1, item: { ...call } }),
      );
    }
    const args = delta.function?.arguments;
    if (args) {
      this.grow(args.length);
      call.arguments += args;
      events.push(
        this.event("response.function_call_arguments.delta", {
          item_id: call.id,
          output_index: this.output.indexOf(call),
          delta: args,
        }),
      );
    }
    return events;
  }

  /** The answer is complete: open items close, then the response's last event. */
  finish(reason: string, usage: ResponseUsage): StreamEvent[] {
    const events = this.closeMessage();
    if (this.refusal) events.push(...this.refusalItem());
    for (const call of this.calls.values()) {
      call.status = "completed";
      const output_index = this.output.indexOf(call);
      events.push(
        this.event("response.function_call_arguments.done", {
          item_id: call.id,
          output_index,
          name: call.name,
          arguments: call.arguments,
        }),
      );
      events.push(this.event("response.output_item.done", { output_index, item: call }));
    }
    this.calls.clear();
    this.response = finished(this.response, this.output, reason, usage);
    events.push(
      this.event(this.response.status === "incomplete" ? "response.incomplete" : "response.completed", {
        response: this.response,
      }),
    );
    return events;
  }

  /** The run failed after the stream began: what was produced stays in the failed response. */
  fail(code: string, message: string): StreamEvent[] {
    this.response = failed(this.response, this.output, code, message);
    return [this.event("response.failed", { response: this.response })];
  }

  /** The response as it ended (what is stored). */
  get result(): ResponseObject {
    return this.response;
  }

  private openMessage(): StreamEvent[] {
    const part: OutputText = { type: "output_text", text: "", annotations: [], logprobs: [] };
    const item: Message = { type: "message", id: newId("msg"), status: "in_progress", role: "assistant", content: [] };
    this.output.push(item);
    this.message = { item, part };
    const output_index = this.output.length - 1;
    return [
      this.event("response.output_item.added", { output_index, item: { ...item, content: [] } }),
      this.event("response.content_part.added", {
        item_id: item.id,
        output_index,
        content_index: 0,
        part: { ...part },
      }),
    ];
  }

  private closeMessage(): StreamEvent[] {
    if (!this.message) return [];
    const { item, part } = this.message;
    this.message = undefined;
    item.content = [part];
    item.status = "completed";
    const output_index = this.output.indexOf(item);
    return [
      this.event("response.output_text.done", {
        item_id: item.id,
        output_index,
        content_index: 0,
        text: part.text,
        logprobs: [],
      }),
      this.event("response.content_part.done", { item_id: item.id, output_index, content_index: 0, part }),
      this.event("response.output_item.done", { output_index, item }),
    ];
  }

  private refusalItem(): StreamEvent[] {
    const part = { type: "refusal" as const, refusal: this.refusal };
    const item: Message = {
      type: "message",
      id: newId("msg"),
      status: "completed",
      role: "assistant",
      content: [part],
    };
    this.output.push(item);
    const output_index = this.output.length - 1;
    const ids = { item_id: item.id, output_index, content_index: 0 };
    return [
      this.event("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } }),
      this.event("response.content_part.added", { ...ids, part: { type: "refusal", refusal: "" } }),
      this.event("response.refusal.done", { ...ids, refusal: this.refusal }),
      this.event("response.content_part.done", { ...ids, part }),
      this.event("response.output_item.done", { output_index, item }),
    ];
  }
}
