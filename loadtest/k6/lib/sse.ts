/**
 * Checks a whole chat completion stream body (k6 reads the body at once): role in the first
 * delta, one id, finish_reason "stop" last, then [DONE]; counts content chunks and heartbeats.
 * Its own small line reader, not the service's SSE reader: k6 runs scripts in its own JavaScript
 * runtime and cannot import npm modules such as eventsource-parser.
 */

export interface StreamCheck {
  ok: boolean;
  error: string;
  contentChunks: number;
  heartbeats: number;
  done: boolean;
}

interface Chunk {
  id?: string;
  object?: string;
  choices?: Array<{ delta?: { role?: string; content?: string }; finish_reason?: string | null }>;
  error?: { message?: string };
}

export function checkStream(body: string, expectedContentChunks?: number): StreamCheck {
  const out: StreamCheck = { ok: false, error: "", contentChunks: 0, heartbeats: 0, done: false };
  let id: string | undefined;
  let finished = false;
  let index = 0;
  for (const event of body.split(/\r?\n\r?\n/)) {
    const data: string[] = [];
    for (const line of event.split(/\r?\n/)) {
      if (line.startsWith(":")) out.heartbeats++;
      else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
    }
    if (data.length === 0) continue;
    const text = data.join("\n");
    if (out.done) return { ...out, error: "data after [DONE]" };
    if (text === "[DONE]") {
      out.done = true;
      continue;
    }
    let chunk: Chunk;
    try {
      chunk = JSON.parse(text) as Chunk;
    } catch {
      return { ...out, error: `chunk ${index} is not JSON` };
    }
    if (chunk.error) return { ...out, error: `error event: ${chunk.error.message}` };
    if (chunk.object !== "chat.completion.chunk") return { ...out, error: `chunk ${index}: object ${chunk.object}` };
    if (id === undefined) id = chunk.id;
    else if (chunk.id !== id) return { ...out, error: `chunk ${index}: another id (interleaved)` };
    const choice = chunk.choices?.[0];
    if (choice) {
      if (finished) return { ...out, error: `chunk ${index}: after finish_reason` };
      if (index === 0 && choice.delta?.role !== "assistant") return { ...out, error: "first chunk has no role" };
      if (choice.delta?.content) out.contentChunks++;
      if (choice.finish_reason) {
        if (choice.finish_reason !== "stop") return { ...out, error: `finish_reason ${choice.finish_reason}` };
        finished = true;
      }
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
