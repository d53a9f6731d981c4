/**
 * Checks a chat completion stream as the harness does: role in the first delta, one id,
 * finish_reason "stop" last, then [DONE]; counts content chunks and heartbeats, keeps when each
 * content chunk arrived and the usage chunk's token count. Events come from xk6-sse as they
 * arrive, or from a whole body (k6/http reads it at once). Its own small reader, not the
 * service's SSE reader: k6 runs scripts in its own JavaScript runtime and cannot import npm
 * modules such as eventsource-parser.
 */

export interface StreamEvent {
  /** The event's data lines joined; "" for a comment. */
  data: string;
  comment: boolean;
  /** Arrival, ms (Date.now()); 0 when read from a whole body. */
  at: number;
}

export interface StreamCheck {
  ok: boolean;
  error: string;
  id?: string;
  contentChunks: number;
  heartbeats: number;
  done: boolean;
  contentTimes: number[];
  contentChars: number[];
  /** The usage chunk's completion_tokens, when the server sent one. */
  completionTokens?: number;
}

interface Chunk {
  id?: string;
  object?: string;
  choices?: Array<{ delta?: { role?: string; content?: string }; finish_reason?: string | null }>;
  usage?: { completion_tokens?: number };
  error?: { message?: string };
}

/** The events of a whole SSE body. */
export function eventsOf(body: string): StreamEvent[] {
  const events: StreamEvent[] = [];
  for (const block of body.split(/\r?\n\r?\n/)) {
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(":")) events.push({ data: "", comment: true, at: 0 });
      else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
    }
    if (data.length) events.push({ data: data.join("\n"), comment: false, at: 0 });
  }
  return events;
}

export function checkEvents(events: readonly StreamEvent[], expectedContentChunks?: number): StreamCheck {
  const out: StreamCheck = {
    ok: false,
    error: "",
    contentChunks: 0,
    heartbeats: 0,
    done: false,
    contentTimes: [],
    contentChars: [],
  };
  let finished = false;
  let index = 0;
  for (const event of events) {
    if (event.comment) {
      out.heartbeats++;
      continue;
    }
    if (out.done) return { ...out, error: "data after [DONE]" };
    if (event.data === "[DONE]") {
      out.done = true;
      continue;
    }
    let chunk: Chunk;
    try {
      chunk = JSON.parse(event.data) as Chunk;
    } catch {
      return { ...out, error: `chunk ${index} is not JSON` };
    }
    if (chunk.error) return { ...out, error: `error event: ${chunk.error.message}` };
    if (chunk.object !== "chat.completion.chunk") return { ...out, error: `chunk ${index}: object ${chunk.object}` };
    if (out.id === undefined) out.id = chunk.id;
    else if (chunk.id !== out.id) return { ...out, error: `chunk ${index}: another id (interleaved)` };
    const choice = chunk.choices?.[0];
    if (choice) {
      if (finished) return { ...out, error: `chunk ${index}: after finish_reason` };
      if (index === 0 && choice.delta?.role !== "assistant") return { ...out, error: "first chunk has no role" };
      const content = choice.delta?.content;
      if (content) {
        out.contentChunks++;
        out.contentTimes.push(event.at);
        out.contentChars.push(Array.from(content).length);
      }
      if (choice.finish_reason) {
        if (choice.finish_reason !== "stop") return { ...out, error: `finish_reason ${choice.finish_reason}` };
        finished = true;
      }
    } else if (!finished) {
      return { ...out, error: `chunk ${index}: empty choices before finish_reason` };
    } else if (typeof chunk.usage?.completion_tokens === "number") {
      out.completionTokens = chunk.usage.completion_tokens;
    }
    index++;
  }
  if (!finished) return { ...out, error: "no finish_reason (truncated)" };
  if (!out.done) return { ...out, error: "no [DONE] (truncated)" };
  if (expectedContentChunks !== undefined && out.contentChunks !== expectedContentChunks) {
    return { ...out, error: `${out.contentChunks} content chunks, expected ${expectedContentChunks}` };
  }
  return { ...out, ok: true };
}

/** A whole body read by k6/http. */
export const checkStream = (body: string, expectedContentChunks?: number) =>
  checkEvents(eventsOf(body), expectedContentChunks);
