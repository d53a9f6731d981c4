/**
 * The upstream stub's own `/responses`, in OpenAI's shape: the answer is "upstream: <text of the
 * last input message>", with its own response id (`resp_upstream`) and a usage of 5 input and 3
 * output tokens; streamed as OpenAI streams it (created, in_progress, the message's item, part and
 * two text deltas, completed). Model "responses-garble" answers JSON that is not a response object;
 * "responses-cut" streams the deltas and stops before `response.completed`.
 */
import type { ServerResponse } from "node:http";

function lastText(input: unknown): string {
  if (typeof input === "string") return input;
  const last = (Array.isArray(input) ? input : []).filter((i) => i?.role === "user").at(-1);
  if (typeof last?.content === "string") return last.content;
  return Array.isArray(last?.content) ? last.content.map((p: { text?: string }) => p.text ?? "").join("") : "";
}

export function answerResponses(body: Record<string, unknown>, res: ServerResponse): void {
  const text = `upstream: ${lastText(body.input)}`;
  const part = { type: "output_text", text, annotations: [], logprobs: [] };
  const item = { type: "message", id: "msg_upstream", status: "completed", role: "assistant", content: [part] };
  const head = {
    id: "resp_upstream",
    object: "response",
    created_at: 1,
    model: body.model,
    instructions: body.instructions ?? null,
    tools: body.tools ?? [],
    store: false,
    metadata: {},
  };
  const done = {
    ...head,
    status: "completed",
    output: [item],
    usage: {
      input_tokens: 5,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: 3,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 8,
    },
  };
  if (body.model === "responses-garble") {
    res.writeHead(200, { "content-type": "application/json" });
    return void res.end(JSON.stringify({ object: "list", data: [] }));
  }
  if (body.stream !== true) {
    res.writeHead(200, { "content-type": "application/json" });
    return void res.end(JSON.stringify(done));
  }
  res.writeHead(200, { "content-type": "text/event-stream" });
  let seq = 0;
  const send = (type: string, fields: object) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...fields })}\n\n`);
  // No usage until the end: OpenAI's schema has no null for it.
  const progress = { ...head, status: "in_progress", output: [] };
  send("response.created", { response: progress });
  send("response.in_progress", { response: progress });
  const at = { item_id: item.id, output_index: 0, content_index: 0 };
  send("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress", content: [] } });
  send("response.content_part.added", { ...at, part: { ...part, text: "" } });
  const [first, rest] = [text.slice(0, 9), text.slice(9)];
  send("response.output_text.delta", { ...at, delta: first, logprobs: [] });
  send("response.output_text.delta", { ...at, delta: rest, logprobs: [] });
  if (body.model === "responses-cut") return void res.end();
  send("response.output_text.done", { ...at, text, logprobs: [] });
  send("response.content_part.done", { ...at, part });
  send("response.output_item.done", { output_index: 0, item });
  send("response.completed", { response: done });
  res.end();
}
