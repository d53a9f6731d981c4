/** Time to first content delta of a streamed chat completion, measured on the body's chunks. */
import { performance } from "node:perf_hooks";
import { Agent, request } from "undici";
import { SseReader } from "../../src/sse/sse-reader.js";

export interface Target {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The first event whose delta carries text, in our chunks and in the upstream's alike. */
function hasContent(data: string): boolean {
  if (data === "[DONE]") return false;
  const chunk = JSON.parse(data) as { choices?: Array<{ delta?: { content?: string | null } }> };
  return Boolean(chunk.choices?.[0]?.delta?.content);
}

async function once(target: Target, dispatcher: Agent): Promise<number> {
  const start = performance.now();
  const res = await request(target.url, { method: "POST", headers: target.headers, body: target.body, dispatcher });
  if (res.statusCode !== 200) throw new Error(`${target.url} answered ${res.statusCode}`);
  const reader = new SseReader();
  let ttft = NaN;
  for await (const chunk of res.body) {
    if (Number.isNaN(ttft) && reader.push(chunk as Buffer).some((e) => e.kind === "data" && hasContent(e.data)))
      ttft = performance.now() - start;
  }
  return ttft;
}

export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** Sequential requests, alternating between targets so drift hits all alike; sorted samples per target (ms). */
export async function ttft(targets: Target[], samples: number): Promise<number[][]> {
  const dispatcher = new Agent({ keepAliveTimeout: 30_000 });
  const out = targets.map(() => [] as number[]);
  try {
    for (let i = 0; i < samples; i++) {
      for (let t = 0; t < targets.length; t++) out[t].push(await once(targets[t], dispatcher));
    }
  } finally {
    await dispatcher.close();
  }
  return out.map((s) => s.sort((a, b) => a - b));
}
