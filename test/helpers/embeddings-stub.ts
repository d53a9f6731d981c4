/**
 * The upstream stub's `/embeddings`, in OpenAI's shape: one vector per input (`dimensions` long,
 * default 4; base64 little-endian float32 when asked), vector i of input i being [i+1, i+1.5, …],
 * and a usage of 7 tokens an input (not our estimate, so settling to it shows). Model "embed-short"
 * answers one vector too few; "embed-garble" answers a body that is not JSON; "embed-hang" never answers.
 */
import type { ServerResponse } from "node:http";

export function answerEmbeddings(body: Record<string, unknown>, res: ServerResponse): void {
  const input = body.input;
  const count =
    typeof input === "string" || (Array.isArray(input) && typeof input[0] === "number")
      ? 1
      : (input as unknown[]).length;
  if (body.model === "embed-hang") return;
  if (body.model === "embed-garble") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"object":"list","data":[');
    return;
  }
  const dims = Number(body.dimensions ?? 4);
  const n = body.model === "embed-short" ? count - 1 : count;
  const data = Array.from({ length: n }, (_, i) => {
    const vector = Array.from({ length: dims }, (_, d) => i + 1 + d / 2);
    const embedding =
      body.encoding_format === "base64" ? Buffer.from(new Float32Array(vector).buffer).toString("base64") : vector;
    return { object: "embedding", index: i, embedding };
  });
  res.writeHead(200, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      object: "list",
      data,
      model: body.model,
      usage: { prompt_tokens: 7 * count, total_tokens: 7 * count },
    }),
  );
}
