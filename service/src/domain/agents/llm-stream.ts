/**
 * Relays an upstream's SSE answer: each chunk's members after its head, as the upstream wrote them,
 * with what the caller accounts for read on the way (content, finish, usage, errors).
 */
import type { Dispatcher } from "undici";
import { upstreamFailed } from "../../errors.js";
import { StreamChunks } from "./answer-members.js";
import { BodyReads } from "./body-reads.js";
import { SseEventTooLarge, SseReader, type SseItem } from "../../sse/sse-reader.js";
import type { AgentContext, AgentEvent, ChatRequest } from "./types.js";
import {
  choicesProblem,
  codeForLog,
  streamReadFailure,
  usageEvent,
  type UpstreamChunk,
  type UpstreamErrorListener,
} from "./upstream-wire.js";

const NONE: AgentEvent[] = [];
const ANSWERING: AgentEvent = { type: "answering" };

/**
 * What the chunks of one network read contribute; they leave together as one event. A chunk that
 * is not JSON, or reports an error, or an event past the reader's limit, ends the reading: the
 * chunks before it still leave, then the failure (`broken`) is thrown.
 */
class StreamState {
  finished = false;
  broken?: Error;
  usage: UpstreamChunk["usage"];
  /** The upstream's usage chunk (choices empty), held back: the client sees it only if it asked. */
  usageChunk?: string;
  chars = 0;
  done = false;

  private readonly chunks = new StreamChunks();
  private readonly ctx: AgentContext;
  constructor(ctx: AgentContext) {
    this.ctx = ctx;
  }

  /** The events of one network read (or of the body's end, `chunk` undefined). */
  read(reader: SseReader, chunk?: Uint8Array): AgentEvent[] {
    try {
      return this.events(chunk === undefined ? reader.end() : reader.push(chunk));
    } catch (err) {
      if (!(err instanceof SseEventTooLarge)) throw err;
      // The events before the endless one still leave; a broken one among them came first.
      const events = this.events(err.items);
      this.broken ??= err;
      return events;
    }
  }

  private events(items: SseItem[]): AgentEvent[] {
    const chunks: string[] = [];
    let text = "";
    for (const item of items) {
      if (item.kind === "comment") continue; // an upstream's keep-alive
      const data = item.data;
      // The body is read to its end after [DONE]: the connection then goes back to the pool.
      if (data === "[DONE]") {
        this.done = true;
        continue;
      }
      // Parsed to be read (a JavaScript scan that builds nothing measured no faster), relayed as
      // the upstream wrote it: no stringify.
      let chunk: UpstreamChunk;
      try {
        chunk = this.chunks.read(data) as UpstreamChunk;
      } catch (err) {
        this.broken = err as SyntaxError;
        break;
      }
      const members = this.chunks.members;
      if (members === undefined) {
        this.broken = new SyntaxError("not a JSON object");
        break;
      }
      if (chunk.error) {
        this.ctx.log.warn({ upstreamCode: codeForLog(chunk.error.code) }, "upstream stream failed");
        this.broken = upstreamFailed("its stream reported an error");
        break;
      }
      const problem = choicesProblem(chunk.choices, false);
      if (problem) {
        this.broken = upstreamFailed(problem.replace("its ", "its stream's "));
        break;
      }
      if (chunk.usage) {
        this.usage = chunk.usage;
        if (!chunk.choices?.length) {
          this.usageChunk = members;
          continue;
        }
      }
      for (const choice of chunk.choices ?? []) {
        if (typeof choice.delta?.content === "string") text += choice.delta.content;
        else if (typeof choice.text === "string") text += choice.text; // a text completion's chunk
        if (choice.finish_reason) this.finished = true;
      }
      chunks.push(members);
    }
    if (!chunks.length) return NONE;
    this.chars += text.length;
    return [{ type: "chunks", chunks, text }];
  }
}

export async function* fromStream(
  send: () => Promise<Dispatcher.ResponseData>,
  request: ChatRequest,
  ctx: AgentContext,
  onError: UpstreamErrorListener,
): AsyncGenerator<AgentEvent> {
  const res = await send();
  yield ANSWERING;
  const reader = new SseReader();
  const state = new StreamState(ctx);
  try {
    const reads = new BodyReads(res.body);
    for (let chunk = await reads.next(); chunk !== undefined; chunk = await reads.next()) {
      for (const event of state.read(reader, chunk)) yield event;
      if (state.broken) throw state.broken;
    }
    for (const event of state.read(reader)) yield event;
    if (state.broken) throw state.broken;
  } catch (err) {
    if (ctx.upstreamSignal.aborted) throw err;
    throw streamReadFailure(err, onError);
  } finally {
    // Anything else that ended the loop (a consumer gone, an error) drops the upstream request.
    if (!res.body.readableEnded) res.body.destroy();
  }
  if (!state.done && !state.finished) {
    onError("bad_response");
    throw upstreamFailed("its stream ended before the answer was complete");
  }
  const usage = await usageEvent(state.usage, request, state.chars);
  if (state.usageChunk !== undefined) usage.chunk = state.usageChunk;
  yield usage;
}
