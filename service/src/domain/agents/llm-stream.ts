/** Reads an upstream's SSE answer into agent events. */
import type { Dispatcher } from "undici";
import { ApiError, upstreamFailed } from "../../errors.js";
import { contentOnly } from "./content-delta.js";
import { SseReader, type SseItem } from "../../sse/sse-reader.js";
import type { AgentContext, AgentEvent, ChatRequest } from "./types.js";
import { connectFailure, usageEvent, type FinishReason, type UpstreamChunk, type UpstreamErrorListener } from "./upstream-wire.js";

/** What one upstream stream chunk contributes; content deltas that arrived together become one. */
class StreamState {
  finish?: FinishReason;
  usage: UpstreamChunk["usage"];
  chars = 0;
  done = false;

  private readonly ctx: AgentContext;
  constructor(ctx: AgentContext) {
    this.ctx = ctx;
  }

  events(items: SseItem[]): AgentEvent[] {
    const out: AgentEvent[] = [];
    let text = "";
    for (const item of items) {
      if (item.kind === "comment") continue; // an upstream's keep-alive
      const data = item.data;
      // The body is read to its end after [DONE]: the connection then goes back to the pool.
      if (data === "[DONE]") {
        this.done = true;
        continue;
      }
      const fast = contentOnly(data);
      if (fast !== undefined) {
        text += fast;
        continue;
      }
      const chunk = JSON.parse(data) as UpstreamChunk;
      if (chunk.error) {
        this.ctx.log.warn({ upstreamCode: chunk.error.code ?? null }, "upstream stream failed");
        throw upstreamFailed("its stream reported an error");
      }
      if (chunk.usage) this.usage = chunk.usage;
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = choice.delta;
      if (delta?.content) text += delta.content;
      if (delta?.tool_calls?.length) {
        if (text) out.push({ type: "content", text });
        text = "";
        out.push({ type: "tool_calls", toolCalls: delta.tool_calls });
      }
      if (choice.finish_reason) this.finish = choice.finish_reason;
    }
    if (text) {
      this.chars += text.length;
      out.push({ type: "content", text });
    }
    return out;
  }
}

export async function* fromStream(
  send: () => Promise<Dispatcher.ResponseData>,
  request: ChatRequest,
  ctx: AgentContext,
  onError: UpstreamErrorListener,
): AsyncGenerator<AgentEvent> {
  const res = await send();
  const decoder = new SseReader();
  const state = new StreamState(ctx);
  try {
    for await (const chunk of res.body) {
      for (const event of state.events(decoder.push(chunk))) yield event;
    }
    for (const event of state.events(decoder.end())) yield event;
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    if (!(err instanceof ApiError || err instanceof SyntaxError)) throw connectFailure(err, onError);
    onError("bad_response");
    throw err instanceof ApiError ? err : upstreamFailed("its stream carried invalid JSON");
  } finally {
    // Anything else that ended the loop (a consumer gone, an error) drops the upstream request.
    if (!res.body.readableEnded) res.body.destroy();
  }
  if (!state.done && !state.finish) {
    onError("bad_response");
    throw upstreamFailed("its stream ended before the answer was complete");
  }
  yield await usageEvent(state.usage, request, state.chars);
  yield { type: "finish", reason: state.finish ?? "stop" };
}
