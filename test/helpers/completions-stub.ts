/**
 * The upstream stub's own legacy `/completions`, in OpenAI's shape (as vLLM answers it too): the
 * answer is "text: <prompt>" for each prompt (`n` choices each), with a usage of 4 prompt and 6
 * completion tokens per prompt; streamed as OpenAI streams it, every chunk a text_completion with
 * `finish_reason` null until the last, then the usage chunk when `stream_options.include_usage`.
 */
import type { ServerResponse } from "node:http";

export function answerTextCompletions(body: Record<string, unknown>, res: ServerResponse): void {
  const prompts = Array.isArray(body.prompt) ? body.prompt : [body.prompt];
  const n = Number(body.n ?? 1);
  const texts = prompts.flatMap((p) =>
    Array.from({ length: n }, () => `${body.echo === true ? String(p) : ""}text: ${JSON.stringify(p)}`),
  );
  const head = {
    id: "cmpl-upstream",
    object: "text_completion",
    created: 1,
    model: body.model,
    system_fingerprint: "fp_stub_1",
  };
  const usage = {
    prompt_tokens: 4 * prompts.length,
    completion_tokens: 6 * prompts.length,
    total_tokens: 10 * prompts.length,
  };
  if (body.stream !== true) {
    const choices = texts.map((text, index) => ({ text, index, logprobs: null, finish_reason: "length" }));
    res.writeHead(200, { "content-type": "application/json" });
    return void res.end(JSON.stringify({ ...head, choices, usage }));
  }
  res.writeHead(200, { "content-type": "text/event-stream" });
  const send = (payload: object) => res.write(`data: ${JSON.stringify({ ...head, ...payload })}\n\n`);
  texts.forEach((text, index) => {
    for (const part of text.split(/(?= )/))
      send({ choices: [{ text: part, index, logprobs: null, finish_reason: null }] });
    send({ choices: [{ text: "", index, logprobs: null, finish_reason: "length" }] });
  });
  const options = body.stream_options as { include_usage?: boolean } | undefined;
  if (options?.include_usage) send({ choices: [], usage });
  res.end("data: [DONE]\n\n");
}
